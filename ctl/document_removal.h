// presplitctl rm's rule: a table's document is not removed while a re-salt migration of the
// table is under way. The plan (<root>/migrations/<table>) would live on without the document
// it was made from, with its capture peer holding the source's WALs; the operator is told what
// to do instead.
#pragma once

#include <string>

#include "daemon/zk/zk_client.h"
#include "presplit/status.h"

namespace presplit::ctl {

// Removes <root>/tables/<table> unless a migration plan exists for the table. Errors, nothing
// removed:
//   FailedPrecondition while a plan exists, naming its phase and what to do: before the switch
//     `presplitctl migration abort TABLE`, after it wait until the migration ends;
//   NotFound when the table has no document; ZooKeeper's errors as they come.
Status RemoveDocument(daemon::ZkClient& zk, const std::string& root, const std::string& table);

}  // namespace presplit::ctl
