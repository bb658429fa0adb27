import { useId, type ReactNode } from 'react';
import './ui.css';

/** Props of {@link Table}. */
export interface TableProps {
  /** The table's name: its `<caption>`, which also names the scrolling region. */
  readonly caption: ReactNode;
  /** Keeps the caption for screen readers only, when a heading above already says it. */
  readonly captionHidden?: boolean;
  /** The `<thead>`, `<tbody>` (and `<tfoot>`) of the table. */
  readonly children: ReactNode;
  /** `data-*` attributes, e.g. `data-testid`, set on the `<table>`. */
  readonly [data: `data-${string}`]: string | undefined;
}

/**
 * A data table that never widens the page: wider than its card, it scrolls sideways inside it. The scrolling
 * region is named by the caption and can take keyboard focus, so it can be scrolled without a mouse.
 */
export function Table({ caption, captionHidden = false, children, ...data }: TableProps) {
  const id = useId();
  return (
    <div className="atrium-table" role="region" aria-labelledby={id} tabIndex={0}>
      <table {...data} className="atrium-table__table">
        <caption
          id={id}
          className={captionHidden ? 'atrium-table__caption atrium-visually-hidden' : 'atrium-table__caption'}
        >
          {caption}
        </caption>
        {children}
      </table>
    </div>
  );
}
