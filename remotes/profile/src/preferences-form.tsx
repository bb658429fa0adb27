import {
  ApiNetworkError,
  ApiProblemError,
  THEME_PREFERENCES,
  useApi,
  useAtrium,
  type MeDocument,
  type Preferences,
  type ThemePreference,
} from '@atrium/sdk';
import { useId, useState, type FormEvent } from 'react';

const THEME_LABELS: Record<ThemePreference, string> = { system: 'System', light: 'Light', dark: 'Dark' };

type SaveState =
  | { readonly status: 'idle' }
  | { readonly status: 'saving' }
  | { readonly status: 'saved' }
  | { readonly status: 'failed'; readonly message: string; readonly themeError: string | undefined };

export interface PreferencesFormProps {
  readonly preferences: Preferences;
  readonly onSaved: (me: MeDocument) => void;
}

export function PreferencesForm({ preferences, onSaved }: PreferencesFormProps) {
  const api = useApi();
  const { setTheme } = useAtrium();
  const [theme, setThemeChoice] = useState<ThemePreference>(preferences.theme);
  const [save, setSave] = useState<SaveState>({ status: 'idle' });
  const themeErrorId = useId();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSave({ status: 'saving' });
    try {
      const me = await api.PUT('/api/me/preferences', { body: { theme } });
      setTheme(me.preferences.theme);
      onSaved(me);
      setSave({ status: 'saved' });
    } catch (error) {
      setSave({ status: 'failed', ...describeSaveError(error) });
    }
  };

  const themeError = save.status === 'failed' ? save.themeError : undefined;
  return (
    <form
      className="atrium-profile__card"
      aria-labelledby="profile-preferences-heading"
      onSubmit={(event) => void submit(event)}
      noValidate
    >
      <h2 id="profile-preferences-heading">Preferences</h2>
      <fieldset
        className="atrium-profile__fieldset"
        aria-invalid={themeError !== undefined}
        aria-describedby={themeError !== undefined ? themeErrorId : undefined}
      >
        <legend>Theme</legend>
        {THEME_PREFERENCES.map((option) => (
          <label key={option} className="atrium-profile__choice">
            <input
              type="radio"
              name="theme"
              value={option}
              checked={theme === option}
              onChange={() => {
                setThemeChoice(option);
                if (save.status !== 'saving') setSave({ status: 'idle' });
              }}
            />
            {THEME_LABELS[option]}
          </label>
        ))}
        {themeError !== undefined && (
          <p id={themeErrorId} role="alert" className="atrium-profile__field-error">
            {themeError}
          </p>
        )}
      </fieldset>
      <div className="atrium-profile__actions">
        <button type="submit" className="atrium-profile__button" disabled={save.status === 'saving'}>
          {save.status === 'saving' ? 'Saving…' : 'Save preferences'}
        </button>
        <p role="status" className="atrium-profile__status">
          {save.status === 'saved' ? 'Preferences saved' : ''}
        </p>
      </div>
      {save.status === 'failed' && save.themeError === undefined && (
        <p role="alert" className="atrium-profile__error">
          {save.message}
        </p>
      )}
    </form>
  );
}

function describeSaveError(error: unknown): { message: string; themeError: string | undefined } {
  if (error instanceof ApiProblemError) {
    return {
      message: `Preferences were not saved: ${error.detail ?? error.title}`,
      themeError: error.fieldError('theme'),
    };
  }
  if (error instanceof ApiNetworkError) {
    return {
      message: 'Preferences were not saved: the Atrium API could not be reached.',
      themeError: undefined,
    };
  }
  return { message: 'Preferences were not saved.', themeError: undefined };
}
