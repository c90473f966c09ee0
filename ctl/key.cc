// presplitctl key: salts (encode) or splits (decode) row keys offline, with a layout given by
// flags or taken from a table document.
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ctl/common.h"
#include "presplit/bytes.h"
#include "presplit/layout.h"
#include "presplit/table_config.h"

namespace presplit::ctl {
namespace {

const char* const kLayoutFlags[] = {"salt",       "buckets",      "salt-encoding",
                                    "salt-width", "group-length", "group-delimiter",
                                    "salt-from"};

std::optional<int> ParseInt(const std::string& text) {
  try {
    size_t used = 0;
    const int value = std::stoi(text, &used);
    if (used != text.size()) return std::nullopt;
    return value;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The layout from --config FILE, or from the flags. Returns kOk, or the exit code to stop with.
int LayoutOf(const Args& args, KeyLayout* layout) {
  if (args.has("config")) {
    for (const char* flag : kLayoutFlags) {
      if (args.has(flag)) {
        return UsageError(std::string("--") + flag + " cannot be combined with --config");
      }
    }
    auto text = ReadInput(args.flag("config"));
    if (!text.ok()) return Fail(text.status().message());
    auto config = ParseTableConfig(*text);
    if (!config.ok()) return RefuseDocument("document refused", config.status());
    auto from_config = LayoutFromConfig(config->layout);
    if (!from_config.ok()) return Fail(from_config.status().message());
    *layout = *from_config;
    return kOk;
  }
  if (!args.has("buckets")) {
    return UsageError("key needs --buckets N (0 for an unsalted layout) or --config FILE");
  }
  KeyLayout spec;
  auto buckets = ParseInt(args.flag("buckets"));
  if (!buckets)
    return UsageError("--buckets needs a whole number, got '" + args.flag("buckets") + "'");
  spec.buckets = *buckets;
  if (args.has("salt")) {
    auto hash = ParseSaltHash(args.flag("salt"));
    if (!hash.ok()) return UsageError(hash.status().message());
    spec.hash = *hash;
  }
  if (args.has("salt-encoding")) {
    auto encoding = ParseSaltEncoding(args.flag("salt-encoding"));
    if (!encoding.ok()) return UsageError(encoding.status().message());
    spec.encoding = *encoding;
  }
  if (args.has("salt-width")) {
    auto width = ParseInt(args.flag("salt-width"));
    if (!width) {
      return UsageError("--salt-width needs a whole number, got '" + args.flag("salt-width") + "'");
    }
    spec.salt_width = *width;
  }
  if (args.has("group-length") && args.has("group-delimiter")) {
    return UsageError("give --group-length or --group-delimiter, not both");
  }
  if (args.has("group-length")) {
    auto length = ParseInt(args.flag("group-length"));
    if (!length) {
      return UsageError("--group-length needs a whole number, got '" + args.flag("group-length") +
                        "'");
    }
    spec.group_length = *length;
  }
  if (args.has("group-delimiter")) {
    auto delimiter = ParseBinaryKey(args.flag("group-delimiter"));
    if (!delimiter.ok()) return UsageError("--group-delimiter: " + delimiter.status().message());
    spec.group_delimiter = *delimiter;
  }
  if (args.has("salt-from")) {
    const std::string& from = args.flag("salt-from");
    if (from == "key") {
      spec.salt_from_key = true;
    } else if (from != "group") {
      return UsageError("--salt-from is group or key, got '" + from + "'");
    }
  }
  auto made = MakeLayout(spec);
  if (!made.ok()) return UsageError(made.status().message());
  *layout = *made;
  return kOk;
}

int CmdKey(const Args& args) {
  std::vector<std::string> keys = args.positional;
  bool decode = false;
  if (!keys.empty() && (keys[0] == "encode" || keys[0] == "decode")) {
    decode = keys[0] == "decode";
    keys.erase(keys.begin());
  }
  if (keys.empty()) return UsageError("key needs a KEY (in toStringBinary form)");
  const std::string format = args.has("format") ? args.flag("format") : "text";
  if (format != "text" && format != "json") {
    return UsageError("--format is text or json, got '" + format + "'");
  }
  KeyLayout layout;
  if (int code = LayoutOf(args, &layout); code != kOk) return code;

  // Every key is checked before anything is printed, so a failure prints nothing on stdout.
  std::string out;
  for (const auto& text : keys) {
    auto key = ParseBinaryKey(text);
    if (!key.ok()) return Fail("key '" + text + "': " + key.status().message());
    if (decode) {
      auto decoded = DecodeKey(layout, *key);
      if (!decoded.ok()) return Fail(decoded.status().message());
      if (format == "json") {
        nlohmann::json j = {{"row_key", ToStringBinary(*key)},
                            {"bucket", decoded->bucket},
                            {"group", ToStringBinary(decoded->group)},
                            {"rest", ToStringBinary(decoded->rest)}};
        out += j.dump() + "\n";
      } else {
        out += std::to_string(decoded->bucket) + "\n" + ToStringBinary(decoded->group) + "\n" +
               ToStringBinary(decoded->rest) + "\n";
      }
    } else {
      auto row = EncodeKey(layout, *key);
      if (!row.ok()) return Fail(row.status().message());
      if (format == "json") {
        auto bucket = BucketOf(layout, *key);
        nlohmann::json j = {{"key", ToStringBinary(*key)},
                            {"bucket", bucket.ok() ? *bucket : -1},
                            {"row_key", ToStringBinary(*row)}};
        out += j.dump() + "\n";
      } else {
        out += ToStringBinary(*row) + "\n";
      }
    }
  }
  std::cout << out;
  return kOk;
}

}  // namespace

std::vector<CommandSpec> KeyCommands() {
  return {
      {"key",
       {"salt", "buckets", "salt-encoding", "salt-width", "group-length", "group-delimiter",
        "salt-from", "config", "format"},
       {},
       "  key [encode|decode] --buckets N [--salt HASH] [--salt-encoding ENC] [--salt-width W]\n"
       "      [--group-length L | --group-delimiter D] [--salt-from group|key]\n"
       "      [--format text|json] KEY...\n"
       "  key [encode|decode] --config FILE [--format text|json] KEY...\n"
       "                        encode (default): print each logical KEY's full row key;\n"
       "                        decode: print each row KEY's bucket, group and rest, a line each\n"
       "                        (json: one object a line). HASH: murmur3 (default), phoenix,\n"
       "                        java-hashcode; ENC: byte (default), decimal, hex; N 0 = unsalted.\n"
       "                        Keys and D in toStringBinary form (\\xHH escapes).\n",
       &CmdKey},
  };
}

}  // namespace presplit::ctl
