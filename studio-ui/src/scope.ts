/** Where a page is: the project and environment it shows, and how it moves elsewhere. */
export interface Scope {
  project: string;
  env: string;
  go: (to: string) => void;
  query: URLSearchParams;
}
