// Building DOM and SVG nodes without HTML strings: text goes in as text nodes or textContent,
// attributes through setAttribute, so data from the server can never become markup.

const SVG_NS = "http://www.w3.org/2000/svg";

function applyProps(el, props) {
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") {
      el.textContent = String(value);
    } else if (key === "class") {
      el.setAttribute("class", Array.isArray(value) ? value.filter(Boolean).join(" ") : value);
    } else if (key === "dataset") {
      for (const [k, v] of Object.entries(value)) {
        if (v !== null && v !== undefined) el.dataset[k] = String(v);
      }
    } else if (key === "style") {
      // CSSOM properties, allowed by the page's Content-Security-Policy (style attributes are not)
      for (const [k, v] of Object.entries(value)) el.style.setProperty(k, String(v));
    } else if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
}

function appendChildren(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** An HTML element: h("td", {class: "num"}, "42"). */
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  applyProps(el, props);
  appendChildren(el, children);
  return el;
}

/** An SVG element: s("rect", {x: 0, y: 0, width: 10, height: 4}). */
export function s(tag, props, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  applyProps(el, props);
  appendChildren(el, children);
  return el;
}

/** Replace what a container shows. */
export function show(container, ...children) {
  container.replaceChildren();
  appendChildren(container, children);
}

export function byId(id) {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`the page has no #${id}`);
  return el;
}

/** Fill a <select> with options [{value, label}], keeping the current choice when it remains. */
export function setOptions(select, options, placeholder) {
  const current = select.value;
  const wanted = options.map((o) => `${o.value}\u0000${o.label}`).join("\u0001");
  if (select.dataset.options !== wanted) {
    select.replaceChildren();
    if (placeholder) select.append(h("option", { value: "", text: placeholder }));
    for (const o of options) select.append(h("option", { value: o.value, text: o.label }));
    select.dataset.options = wanted;
  }
  if (options.some((o) => String(o.value) === current)) select.value = current;
  return select.value;
}
