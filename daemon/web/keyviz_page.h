// The page GET /keyviz?table=ns:t serves: the key visualizer. A canvas heatmap of the table's load
// (x = time, y = key space; colour = reads, writes, bytes or total) drawn from GET /keyviz.json,
// with a physical/logical switch for salted tables, the events on the time axis, a hover with
// the key range, the regions and the numbers, and the diagnoses outlined where they occur.
// Self-contained: no CDN, no assets. For tests, `window.keyviz` holds the JSON drawn and the
// element ids are stable (docs/key-visualizer.md lists them).
#pragma once

#include <string_view>

namespace presplit::daemon::web {

std::string_view KeyvizPageHtml();

}  // namespace presplit::daemon::web
