import { useCallback, useEffect, useRef, useState } from "react";

/** Loads data, reloads on dependency change and every `refreshMs` (0: never). */
export function useData<T>(load: () => Promise<T>, deps: unknown[], refreshMs = 0) {
  const [data, setData] = useState<T | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [loading, setLoading] = useState(true);
  const latest = useRef(0);
  const run = useCallback(
    () => {
      const n = ++latest.current;
      setLoading(true);
      load()
        .then(
          (d) => {
            if (n === latest.current) {
              setData(d);
              setError(undefined);
            }
          },
          (e: Error) => {
            if (n === latest.current) setError(e.message);
          },
        )
        .finally(() => {
          if (n === latest.current) setLoading(false);
        });
    },
    // biome-ignore lint/correctness/useExhaustiveDependencies: `deps` is the caller's list (what `load` reads), passed on as this callback's dependencies
    deps,
  );
  useEffect(() => {
    run();
    if (!refreshMs) return;
    const t = setInterval(run, refreshMs);
    return () => clearInterval(t);
  }, [run, refreshMs]);
  return { data, error, loading, reload: run };
}

/** The browser path as state, with pushState navigation. */
export function usePath(): [string, (to: string) => void] {
  const [path, setPath] = useState(location.pathname + location.search);
  useEffect(() => {
    const f = () => setPath(location.pathname + location.search);
    addEventListener("popstate", f);
    return () => removeEventListener("popstate", f);
  }, []);
  const go = useCallback((to: string) => {
    history.pushState(null, "", to);
    setPath(to);
  }, []);
  return [path, go];
}
