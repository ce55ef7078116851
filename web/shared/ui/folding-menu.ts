import { useEffect, useLayoutEffect, useState } from 'preact/hooks';

/**
 * The header menu that folds behind a button on a phone (#menu-toggle): a navigation (any other
 * path) or Escape closes it, and Escape gives the focus back to the button. A layout effect listens
 * as soon as the menu renders open (a plain effect waits for a frame; an Escape pressed meanwhile was lost).
 */
export function useFoldingMenu(pathname: string): [open: boolean, setOpen: (open: boolean) => void] {
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [pathname]);
  useLayoutEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      setOpen(false);
      document.getElementById('menu-toggle')?.focus();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [open]);
  return [open, setOpen];
}
