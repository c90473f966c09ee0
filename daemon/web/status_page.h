// The page GET / serves: per watched table, a heatmap of its regions in key order (colour =
// request rate, a second row = size, hot regions outlined) and the last split decisions, drawn
// in plain SVG by a script that refreshes from GET /status. Self-contained: no CDN, no assets.
#pragma once

#include <string_view>

namespace presplit::daemon::web {

std::string_view StatusPageHtml();

}  // namespace presplit::daemon::web
