// `@atrium/sdk/ui`: what a feature's screens are made of. Bundled into each remote (and the shell) that uses it,
// rather than shared: only what a bundle imports ships, and the shell's first load pays for none of the rest.
// Its modules reach the sdk's core only through '@atrium/sdk' (the shared singleton), never by relative path,
// so error classes and the context stay the shell's. Each primitive imports ui.css itself: bundlers skip this
// side-effect-free index and take the modules it re-exports directly.

export { Alert } from './alert';
export type { AlertProps } from './alert';
export { Button } from './button';
export type { ButtonProps } from './button';
export { Card } from './card';
export type { CardProps } from './card';
export { ConfirmDialog } from './confirm-dialog';
export type { ConfirmDialogProps } from './confirm-dialog';
export { describeApiError } from './describe-api-error';
export { ChoiceField, Field, SelectField } from './field';
export type { Choice, ChoiceFieldProps, FieldProps, SelectFieldProps } from './field';
export { useReturnFocus } from './focus';
export { FormRow } from './form-row';
export type { FormRowProps } from './form-row';
export { DOCUMENT_TITLE_SUFFIX, Page, useDocumentTitle } from './page';
export type { PageProps } from './page';
export { useApiResource, useAsyncAction, useAsyncResource } from './resource';
export type { ActionOutcome, AsyncAction, AsyncResource, ResourceLoader } from './resource';
export { ResourceView } from './resource-view';
export type { ResourceViewProps } from './resource-view';
export { Table } from './table';
export type { TableProps } from './table';
