/**
 * The explorer's calls to the admin API. The token lives in sessionStorage (gone with the tab)
 * and goes as a Bearer header; a 401 sends the operator back to the login form.
 */
const KEY = 'dwell-admin-token';

export const token = (): string | null => sessionStorage.getItem(KEY);
export const setToken = (t: string | null): void => (t ? sessionStorage.setItem(KEY, t) : sessionStorage.removeItem(KEY));

export class ApiError extends Error {
  constructor(readonly status: number, message: string) { super(message); }
}

export async function api<T = any>(path: string, init: { method?: string; body?: string } = {}): Promise<T> {
  const res = await fetch(path, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${token() ?? ''}`, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: init.body,
  });
  const text = await res.text();
  let json: any = null;
  try { json = JSON.parse(text); } catch { /* an error page that is not JSON: shown as text */ }
  if (!res.ok) throw new ApiError(res.status, json?.error ? `${json.error.code}: ${json.error.message}` : `${res.status} ${text.slice(0, 200)}`);
  return json as T;
}
