// matrix.html's script (inline, admitted by its hash in the page's Content-Security-Policy): the filter box
// hides rows whose id and title do not hold the text typed. The page reads fully without it.
(() => {
  const form = document.getElementById('filter-form');
  const input = document.getElementById('filter');
  const shown = document.getElementById('shown');
  const none = document.getElementById('no-match');
  const rows = [...document.querySelectorAll('tr[data-rule]')];
  form.hidden = false;
  form.addEventListener('submit', (e) => e.preventDefault());
  const apply = () => {
    const q = input.value.trim().toLowerCase();
    let n = 0;
    for (const row of rows) {
      const show = q === '' || row.dataset.rule.includes(q);
      row.hidden = !show;
      if (show) n++;
    }
    shown.textContent = q === '' ? '' : n + ' of ' + rows.length + ' rows';
    none.hidden = n > 0;
  };
  input.addEventListener('input', apply);
})();
