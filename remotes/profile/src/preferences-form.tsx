import {
  ApiProblemError,
  THEME_PREFERENCES,
  useApi,
  useAtrium,
  type MeDocument,
  type Preferences,
  type ThemePreference,
} from '@atrium/sdk';
import { Alert, Button, Card, ChoiceField, describeApiError, useAsyncAction } from '@atrium/sdk/ui';
import { useId, useState, type FormEvent } from 'react';

const THEME_OPTIONS = THEME_PREFERENCES.map((value) => ({
  value,
  label: { system: 'System', light: 'Light', dark: 'Dark' }[value],
}));

export interface PreferencesFormProps {
  readonly preferences: Preferences;
  readonly onSaved: (me: MeDocument) => void;
}

export function PreferencesForm({ preferences, onSaved }: PreferencesFormProps) {
  const api = useApi();
  const { setTheme } = useAtrium();
  const [theme, setThemeChoice] = useState<ThemePreference>(preferences.theme);
  const save = useAsyncAction();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const outcome = await save.run(() => api.put<MeDocument>('/api/me/preferences', { theme }));
    if (outcome.ok) {
      setTheme(outcome.value.preferences.theme);
      onSaved(outcome.value);
    }
  };

  const headingId = useId();
  const themeError = save.error instanceof ApiProblemError ? save.error.fieldError('theme') : undefined;
  return (
    <Card heading="Preferences" headingId={headingId}>
      <form
        className="atrium-profile__form"
        aria-labelledby={headingId}
        onSubmit={(event) => void submit(event)}
        noValidate
      >
        <ChoiceField
          legend="Theme"
          name="theme"
          options={THEME_OPTIONS}
          value={theme}
          error={themeError}
          onChange={(next) => {
            setThemeChoice(next);
            save.reset();
          }}
        />
        {save.status === 'failed' && (
          <Alert>{describeApiError(save.error, 'Preferences were not saved')}</Alert>
        )}
        <div className="atrium-profile__actions">
          <Button type="submit" busy={save.busy} busyLabel="Saving…">
            Save preferences
          </Button>
          <Alert tone="success">{save.status === 'done' ? 'Preferences saved' : ''}</Alert>
        </div>
      </form>
    </Card>
  );
}
