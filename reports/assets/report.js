// report.html's script (inline, admitted by its hash in the page's Content-Security-Policy):
// filters and search over the rules' data-* attributes, and opening a rule reached by its fragment.
// Without script the page is complete and the filters stay hidden.
(() => {
  const form = document.getElementById('filters');
  const rules = Array.from(document.querySelectorAll('details.rule'));
  const search = document.getElementById('search');
  const out = document.getElementById('shown-count');
  const none = document.getElementById('no-match');
  const picked = (name) => new Set(Array.from(form.querySelectorAll('input[name="' + name + '"]:checked'), (i) => i.value));
  const apply = () => {
    const outcomes = picked('outcome');
    const severities = picked('severity');
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    let n = 0;
    for (const rule of rules) {
      const hay = rule.dataset.search || '';
      const show = outcomes.has(rule.dataset.outcome) && severities.has(rule.dataset.severity) && words.every((w) => hay.includes(w));
      rule.hidden = !show;
      if (show) n++;
    }
    out.textContent = n + ' of ' + rules.length + ' rules shown';
    none.hidden = n > 0;
  };
  const reveal = () => {
    const target = location.hash.length > 1 ? document.getElementById(location.hash.slice(1)) : null;
    if (!target || !target.matches('details.rule')) return;
    if (target.hidden) {
      form.reset();
      apply();
    }
    target.open = true;
  };
  form.hidden = false;
  form.addEventListener('input', apply);
  form.addEventListener('submit', (e) => e.preventDefault());
  form.addEventListener('reset', () => setTimeout(apply));
  window.addEventListener('hashchange', reveal);
  apply();
  reveal();
})();
