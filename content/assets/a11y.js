// @ts-check
// Repairs to the theme's markup that matter only once scripts run.
//
// Material's search is a dialog (role="dialog") without a name; screen readers announce it
// as an unnamed dialog. Search works only with JavaScript, so naming it here is enough.
// A module script runs after the document is parsed: the element is there.
const search = document.querySelector('.md-search[role="dialog"]');
if (search && !search.hasAttribute("aria-label") && !search.hasAttribute("aria-labelledby")) {
  search.setAttribute("aria-label", "Search");
}
