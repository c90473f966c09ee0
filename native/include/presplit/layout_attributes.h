// The key layout a table was built with, recorded in the table's own HBase descriptor as
// `presplit.layout.*` table attributes (the names of conf/hbase/table-attributes.md), and read
// back from it.
//
// The descriptor travels with the table: a document removed and written again, edited for a
// re-salt, or refused as invalid cannot make writers salt a table differently from the way its
// rows were written. presplitd sets these attributes on every table it creates and trusts them
// over anything else when it reports the layout of an existing table.
//
// Attributes (values are strings, as HBase stores them):
//   presplit.layout.recorded       "true": the attributes below are the complete layout; one
//                                  that is absent is not used (a table built unsalted records
//                                  only this one)
//   presplit.layout.salt.buckets   decimal; its presence means the table is salted
//   presplit.layout.salt.encoding  byte | decimal | hex
//   presplit.layout.salt.width     decimal, the resolved width (never 0)
//   presplit.layout.salt.hash      murmur3 | phoenix | java-hashcode
//   presplit.layout.salt.from      group | key
//   presplit.layout.group.length   decimal
//   presplit.layout.group.delimiter  the delimiter in Bytes.toStringBinary form
//
// Tables created before the marker existed may carry the salt and group attributes without it
// (those presplitd built with a split_policy, or tables described by hand in the HBase shell):
// they are read the same way.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "presplit/status.h"
#include "presplit/table_config.h"

namespace presplit {

inline constexpr std::string_view kLayoutAttributePrefix = "presplit.layout.";
inline constexpr const char* kLayoutRecordedAttribute = "presplit.layout.recorded";

// True for the names LayoutAttributes writes (any name under presplit.layout.).
bool IsLayoutAttribute(std::string_view name);

// The attributes that record `layout`: the marker, plus the salt and group settings in use,
// with every default resolved (the salt width written out). Never throws.
std::map<std::string, std::string> LayoutAttributes(const LayoutConfig& layout);

// The MigrationGuard (presplit-hbase.jar's io.presplit.capture.MigrationGuard), as the table
// coprocessor value HBase parses: no jar path (the class is on the RegionServers' classpath),
// Coprocessor.PRIORITY_HIGHEST, so that a write it refuses reaches no other coprocessor. Every
// table presplitd creates carries it, dormant: it refuses nothing until a re-salt's change
// capture of the table runs. Attached at creation, a table's first re-salt need not reopen every
// region to attach it; a table created before, or by hand, gets it then. Under number 2, so that
// the LoadSamplingObserver keeps coprocessor$1.
inline constexpr const char* kMigrationGuardAttribute = "coprocessor$2";
inline constexpr const char* kMigrationGuardCoprocessor = "|io.presplit.capture.MigrationGuard|0|";

// True for the attributes presplitd sets when it creates a table and never compares later: the
// MigrationGuard's, which a table created before it was set at creation lacks until its first
// re-salt, and which that re-salt attaches under whatever number is free.
bool IsCreationOnlyAttribute(std::string_view name);

// Every table attribute presplitd sets when it creates the table for `config`: those of its
// split policy (SplitPolicyAttributes), the layout record (LayoutAttributes) and the dormant
// MigrationGuard, for every table, with or without a split policy.
std::map<std::string, std::string> TableAttributes(const TableConfig& config);

// The layout recorded in a table's attributes (other attributes are ignored). nullopt when the
// table carries no presplit.layout.* attribute at all (a table built before layouts were
// recorded, or not by presplit). The rules are those of the document's "layout" object
// (ParseTableConfig), so a record reads back exactly as written; a value that breaks them is an
// InvalidArgument naming the attribute, e.g. "attribute 'presplit.layout.salt.buckets': must be
// between 1 and 256 (got 300)". Never throws.
Result<std::optional<LayoutConfig>> LayoutFromAttributes(
    const std::map<std::string, std::string>& attributes);

// A layout as the JSON object of the document's canonical form (TableConfigToJson's "layout"),
// compact: {"group":{"length":32},"salt":{"buckets":10,...}}; "{}" for no layout. What the
// status document reports and the writer SDK reads. Never throws.
std::string LayoutToJson(const LayoutConfig& layout);

// The salt bucket count of a layout in LayoutToJson's form (as a status or a migration plan
// carries it): 0 when it is unsalted, or not a JSON object with an integer salt.buckets.
int SaltBucketsOfLayoutJson(std::string_view layout_json);

}  // namespace presplit
