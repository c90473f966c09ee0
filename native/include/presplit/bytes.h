// Binary row keys as text, in HBase's Bytes.toStringBinary form: the form the HBase shell reads
// and prints, and the one presplit uses for keys in JSON, logs and command output.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "presplit/status.h"

namespace presplit {

// Byte-for-byte HBase Bytes.toStringBinary: bytes 0x20..0x7E other than the backslash are
// printed as themselves; every other byte (controls, 0x7F, 0x80..0xFF and the backslash itself)
// as "\xHH" with two upper-case hex digits.
std::string ToStringBinary(std::string_view bytes);

// ToStringBinary of at most the first `max_bytes` bytes, then "..." when there were more: keys
// for log lines and events, where a user's key may be kilobytes long.
std::string ToStringBinaryPrefix(std::string_view bytes, size_t max_bytes);

// Text for a log line or a JSON status: printable ASCII (0x20..0x7E, the backslash included) as
// is, every other byte as "\xHH". Unlike ToStringBinary it keeps backslashes, which messages
// that quote a document need unchanged.
std::string EscapeNonPrintable(std::string_view text);

// HBase Bytes.toBytesBinary: the lenient decoder the HBase shell uses (SPLITS, SPLITS_FILE).
// "\xHH" with two hex digits from [0-9A-F] becomes the byte HH; every other character becomes
// the byte with its value. Quirks kept on purpose so results match HBase:
//  - hex digits must be upper case: in "\x0a" the escape is bogus;
//  - a bogus escape ("\x" not followed by two digits from [0-9A-F]) drops the backslash only, so
//    "\xGG" decodes to "xGG" and "\x0a" to "x0a";
//  - a backslash not followed by 'x' is an ordinary character ("\y" stays "\y").
// Where HBase throws StringIndexOutOfBoundsException (an escape cut short by the end of the
// text: "\x", "\xA"), this treats the escape as bogus too: the backslash is dropped and the rest
// kept ("\xA" decodes to "xA").
// The input is taken byte by byte; HBase takes UTF-16 chars and keeps the low byte of each, so
// the two differ only for non-ASCII text, which toStringBinary never produces.
std::string ToBytesBinary(std::string_view text);

// The strict decoder for user input (config documents, command lines): the same decoding as
// ToBytesBinary for well-formed text, but a "\x" that is not followed by two hex digits from
// [0-9A-F] is an InvalidArgument error naming its byte offset (lower-case hex digits are
// rejected rather than silently misread the way HBase does). A backslash not followed by 'x' is
// kept literally, as in HBase.
Result<std::string> ParseBinaryKey(std::string_view text);

// Unsigned lexicographic byte comparison (HBase's Bytes.compareTo): <0, 0 or >0.
int CompareBytes(std::string_view a, std::string_view b);

// ASCII case-insensitive equality, for names in documents and on command lines.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// The smallest key greater than every key that starts with `prefix`: the prefix without its
// trailing 0xFF bytes and with its last byte incremented. Empty when there is none (an empty or
// all-0xFF prefix), which as a scan's stop row means "to the end of the table".
std::string PrefixEnd(std::string_view prefix);

}  // namespace presplit
