import { useId, type ReactNode } from 'react';
import './ui.css';

/** Props of {@link Card}. */
export interface CardProps {
  /** The card's heading (an `<h2>`), which also names the card for screen readers. */
  readonly heading: ReactNode;
  /** The heading's id, when something inside (a form) is named by it too; generated otherwise. */
  readonly headingId?: string;
  /** Classes of the screen's own, for what is particular to it (a grid of its children, say). */
  readonly className?: string;
  readonly children?: ReactNode;
  /** `data-*` attributes, e.g. `data-testid`, set on the card. */
  readonly [data: `data-${string}`]: string | undefined;
}

/**
 * One part of a screen, framed: a region named by its heading. Cards set no outer margin: the screen that
 * lays them out spaces them (a grid's gap), so a card looks the same in a list, a grid or on its own.
 */
export function Card({ heading, headingId, className, children, ...data }: CardProps) {
  const generated = useId();
  const id = headingId ?? generated;
  return (
    <section
      {...data}
      aria-labelledby={id}
      className={className ? `atrium-card ${className}` : 'atrium-card'}
    >
      <h2 id={id} className="atrium-card__heading">
        {heading}
      </h2>
      {children}
    </section>
  );
}
