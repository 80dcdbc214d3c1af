/** The page's element with this id (a page built without it is a bug: thrown). */
export function $(id: string): HTMLElement {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} missing from the page`);
  return element;
}

export const input = (id: string) => $(id) as HTMLInputElement;

/**
 * Says `text` in the live region (#status). A step's own change is announced `quiet` (read out,
 * not shown: the step shows it already); progress and problems outside a step are shown too.
 */
export function announce(text: string, quiet = false): void {
  const status = $('status');
  status.classList.toggle('quiet', quiet);
  status.textContent = text;
}

/** Shows (or clears, with null) an error under a field, and marks the field invalid. */
export function setError(id: string, text: string | null, field?: HTMLElement): void {
  const element = $(id);
  element.hidden = text === null;
  // Errors are words ("Error: …"), not a colour alone.
  element.textContent = text === null ? '' : `Error: ${text}`;
  if (field) {
    if (text === null) field.removeAttribute('aria-invalid');
    else field.setAttribute('aria-invalid', 'true');
  }
}
