import { describe, expect, it } from 'vitest';
import { RELEASE_TYPES_FORMAT, type ReleaseTypes } from '@atrium/sdk/release-types';
import { repoRoot } from './publish-release.ts';
import { breakingChanges } from './type-compare.ts';

/** A release exposing `./Feature` with these declarations. */
const release = (version: string, declarations: string): ReleaseTypes => ({
  format: RELEASE_TYPES_FORMAT,
  remote: 'leave',
  version,
  sdkVersion: '0.1.0',
  exposes: { './Feature': 'Feature.d.ts' },
  files: { 'Feature.d.ts': "export * from './src/feature';\n", 'src/feature.d.ts': declarations },
});

// The active release: a component with a required, an optional and a union-typed prop, a value, a type.
const ACTIVE = `
export interface FeatureProps {
  basePath: string;
  title?: string;
  layout: 'list' | 'grid';
}
export declare function Feature(props: FeatureProps): null;
export declare const featureInfo: { readonly title: string; readonly icon: string };
export type Layout = FeatureProps['layout'];
`;

const changesTo = (declarations: string) =>
  breakingChanges(release('1.0.0', ACTIVE), release('1.1.0', declarations), repoRoot);

describe('breakingChanges', () => {
  it('finds nothing between the same declarations', () => {
    expect(changesTo(ACTIVE)).toEqual([]);
  });

  it.each([
    [
      'a removed export',
      ACTIVE.replace(/export declare const featureInfo.*\n/, ''),
      './Feature: featureInfo was removed',
    ],
    ['a removed type export', ACTIVE.replace(/export type Layout.*\n/, ''), './Feature: Layout was removed'],
    [
      'a required prop added',
      ACTIVE.replace('basePath: string;', 'basePath: string;\n  owner: string;'),
      './Feature: Feature: prop owner was added as required',
    ],
    [
      'an optional prop made required',
      ACTIVE.replace('title?: string;', 'title: string;'),
      './Feature: Feature: prop title is now required',
    ],
    ['a removed prop', ACTIVE.replace('title?: string;', ''), './Feature: Feature: prop title was removed'],
    [
      "a prop's type narrowed",
      ACTIVE.replace("layout: 'list' | 'grid';", "layout: 'list';"),
      './Feature: Feature: prop layout accepts less: it took "list" | "grid", it takes "list"',
    ],
    [
      "a property gone from an exported value's type",
      ACTIVE.replace('readonly icon: string ', ''),
      './Feature: featureInfo changed its type incompatibly: it was { readonly title: string; readonly icon: string; }, it is { readonly title: string; }',
    ],
    [
      'an exported value that may now be missing',
      ACTIVE.replace('readonly title: string;', 'readonly title: string | undefined;'),
      expect.stringMatching(/^\.\/Feature: featureInfo changed its type incompatibly/) as unknown as string,
    ],
  ])('calls %s breaking', (_change, declarations, found) => {
    expect(changesTo(declarations)).toEqual([found]);
  });

  it.each([
    ['an optional prop added', ACTIVE.replace('title?: string;', 'title?: string;\n  subtitle?: string;')],
    [
      "a prop's type widened",
      ACTIVE.replace("layout: 'list' | 'grid';", "layout: 'list' | 'grid' | 'board';"),
    ],
    ['a required prop made optional', ACTIVE.replace('basePath: string;', 'basePath?: string;')],
    ['an export added', `${ACTIVE}\nexport declare const version: string;\n`],
    [
      'a type export changed (its values are what is compared)',
      ACTIVE.replace('export type Layout = ', 'export type Layout = "board" | '),
    ],
  ])('calls %s compatible', (_change, declarations) => {
    expect(changesTo(declarations)).toEqual([]);
  });

  it("checks a React component's props through React's own types", () => {
    const component = (props: string) =>
      `import type { ComponentType } from 'react';\nexport declare const Feature: ComponentType<{ ${props} }>;\n`;
    const compare = (before: string, after: string) =>
      breakingChanges(release('1.0.0', component(before)), release('1.1.0', component(after)), repoRoot);

    expect(compare('basePath: string', 'basePath: string; owner: string')).toEqual([
      './Feature: Feature: prop owner was added as required',
    ]);
    expect(compare('basePath: string', 'basePath: string; owner?: string')).toEqual([]);
  });

  it('calls a module no longer exposed breaking', () => {
    const next = { ...release('1.1.0', ACTIVE), exposes: { './Other': 'Feature.d.ts' } };
    expect(breakingChanges(release('1.0.0', ACTIVE), next, repoRoot)).toEqual([
      './Feature is no longer exposed',
    ]);
  });

  it('refuses to compare declarations whose imports resolve nowhere, which would make every change look compatible', () => {
    const unresolvable = `import type { Widget } from 'no-such-package';\nexport declare const Feature: Widget;\n`;
    expect(() =>
      breakingChanges(release('1.0.0', unresolvable), release('1.1.0', unresolvable), repoRoot),
    ).toThrow(/cannot be compared.*\n- \.atrium-types\/active\/src\/feature\.d\.ts imports no-such-package/);
  });
});
