// The JSON Pointer (RFC 6901) of the field a table document's error is about, read from the
// parser's message. Every field error of ParseTableConfig starts with "field '<path>': ", where
// <path> is the parser's dotted path with array indices in brackets ("layout.salt.buckets",
// "families[0].name"); this turns it into "/layout/salt/buckets", "/families/0/name", so a portal
// can put the message next to the form field. Derived here, in one place, rather than written
// into each message. Pure: no I/O.
#pragma once

#include <string>
#include <string_view>

namespace presplit {

// "layout.salt.buckets" -> "/layout/salt/buckets"; "families[0].name" -> "/families/0/name";
// "" -> "" (the whole document). Each member name is escaped as RFC 6901 says ('~' as "~0", '/'
// as "~1"). A member name that itself contains '.' or '[' cannot be told apart from a nested path
// in the dotted form and is split there (a '[' that starts no "[digits]" stays in the name).
std::string FieldPathToPointer(std::string_view path);

struct FieldErrorParts {
  std::string pointer;  // "" = the whole document (malformed JSON, too large, not an object)
  std::string message;  // the message without its "field '<path>': " prefix
};

// Splits a ParseTableConfig message into the field's pointer and the rest. A message without the
// "field '<path>': " prefix is about the whole document: pointer "", message unchanged.
FieldErrorParts SplitFieldError(std::string_view message);

}  // namespace presplit
