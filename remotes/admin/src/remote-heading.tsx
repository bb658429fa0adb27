/** A remote's card heading: its title, then its name (the registry's key for it) in muted type. */
export function RemoteHeading({ remote }: { remote: { readonly title: string; readonly name: string } }) {
  return (
    <>
      {remote.title} <span className="atrium-admin__muted">({remote.name})</span>
    </>
  );
}
