/** The JSON the Django view put in <script id="page-data"> (see templates/app.html). */
export function pageData<T>(): T | null {
  const element = document.getElementById("page-data");
  if (!element?.textContent) return null;
  try {
    return JSON.parse(element.textContent) as T;
  } catch {
    return null;
  }
}
