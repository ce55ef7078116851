/**
 * Leaflet writes a string tooltip, popup or attribution into the page as HTML. Anything that comes
 * from data (a courier's, merchant's or customer's name, an address) goes through here instead: as
 * a text node in an element (`mapText`) or escaped (`escapeHtml`, for the few Leaflet options that
 * only take a string). The tracking page (realtime/public/track.js, no bundle) has its own copy.
 */
export function mapText(text: string): HTMLElement {
  const span = document.createElement('span');
  span.textContent = text;
  return span;
}

export const escapeHtml = (text: string): string => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
