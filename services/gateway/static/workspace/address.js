// A conversation's address: /c/<thread_id>. Opening a conversation puts it in the address bar, so a
// reload or a shared link reopens it; "New chat" goes back to /.

const PATH = /^\/c\/([0-9a-fA-F-]{36})\/?$/;

/** The thread named in the current address, or null. */
export function threadInAddress() {
  return location.pathname.match(PATH)?.[1] || null;
}

/** Show `threadId` (or the workspace's start) in the address bar; a new history entry unless `replace`. */
export function showThread(threadId, { replace = false } = {}) {
  const path = threadId ? `/c/${threadId}` : "/";
  if (location.pathname === path) return;
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
}
