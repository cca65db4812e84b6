// The service worker of Herald's Firefox test page: each push message goes to the open pages.
self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));
self.addEventListener("push", (event) => {
  const message = { text: event.data ? event.data.text() : null, at: Date.now() };
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((pages) => {
      for (const page of pages) page.postMessage(message);
    }),
  );
});
