// @vitest-environment happy-dom
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { Button } from './button';
import { Field, SelectField } from './field';
import { FormRow } from './form-row';
import { Table } from './table';

afterEach(cleanup);

describe('Button, danger variant', () => {
  it('carries the danger look, and only that one', () => {
    render(<Button variant="danger">Delete my account</Button>);
    const button = screen.getByRole('button', { name: 'Delete my account' });
    expect([...button.classList]).toEqual(['atrium-button', 'atrium-button--danger']);
  });
});

describe('Table', () => {
  const people = (
    <>
      <thead>
        <tr>
          <th scope="col">Who</th>
        </tr>
      </thead>
      <tbody>
        <tr>
          <td>Ada</td>
        </tr>
      </tbody>
    </>
  );

  it('is a table named by its caption, inside a focusable region of the same name that scrolls', () => {
    render(
      <Table caption="People" data-testid="people">
        {people}
      </Table>,
    );
    const table = screen.getByRole('table', { name: 'People' });
    expect(table.dataset['testid']).toBe('people');
    const region = screen.getByRole('region', { name: 'People' });
    expect(region.className).toBe('atrium-table');
    expect(region.tabIndex).toBe(0);
    expect(within(region).getByRole('cell').textContent).toBe('Ada');
  });

  it('can keep its caption for screen readers only', () => {
    render(
      <Table caption="People" captionHidden>
        {people}
      </Table>,
    );
    expect(screen.getByRole('table', { name: 'People' }).querySelector('caption')?.className).toContain(
      'atrium-visually-hidden',
    );
  });
});

describe('FormRow and SelectField', () => {
  it('keeps each label tied to its control, in a row that wraps', () => {
    const { container } = render(
      <FormRow>
        <SelectField
          label="Version"
          name="version"
          value="1.1.0"
          onChange={() => undefined}
          options={[
            { value: '1.1.0', label: '1.1.0' },
            { value: '1.0.0', label: '1.0.0' },
          ]}
        />
        <Field label="Share of people (%)" name="percent" type="number" defaultValue="10" />
        <Button type="submit">Start canary</Button>
      </FormRow>,
    );
    expect(container.firstElementChild?.className).toBe('atrium-form-row');
    const select = screen.getByRole<HTMLSelectElement>('combobox', { name: 'Version' });
    expect([...select.options].map((option) => option.value)).toEqual(['1.1.0', '1.0.0']);
    expect(select.value).toBe('1.1.0');
    expect(screen.getByRole('spinbutton', { name: 'Share of people (%)' })).toBeTruthy();
  });

  it('ties a select error to the select', () => {
    render(<SelectField label="Version" name="version" options={[]} error="choose a version" />);
    const select = screen.getByRole('combobox', { name: 'Version' });
    expect(select.getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByTestId('error-version').textContent).toBe('choose a version');
  });
});
