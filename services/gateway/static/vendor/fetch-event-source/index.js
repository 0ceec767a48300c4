export { fetchEventSource, EventStreamContentType } from './fetch.js';
//# sourceMappingURL=index.js.map