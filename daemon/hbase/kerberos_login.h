// The embedded JVM's Kerberos login over JNI: io.presplit.hbase.admin.KerberosLogin's static
// login and checkAndRelogin (java-shim). Both run on the CALLING thread (attached to the JVM), so
// that a slow KDC holds up only the caller, never the HBase calls queued on the JVM's own thread.
// How long a KDC that does not answer can hold a call is bounded by krb5.conf's kdc_timeout and
// max_retries (Java's defaults: 30 s, 3 tries per KDC).
#pragma once

#include <map>
#include <string>

#include "daemon/hbase/jvm_host.h"
#include "daemon/hbase/kerberos_state.h"

namespace presplit::daemon {

// Sets Hadoop's security to Kerberos (with these HBase client settings over hbase-site.xml) and
// logs the JVM in as `principal` from `keytab`. The error's message is one line: "Kerberos login
// as P from keytab K failed: <the KDC's or Java's reason>".
Result<KerberosTicket> KerberosLoginFromKeytab(
    JvmHost& jvm, const std::string& principal, const std::string& keytab,
    const std::map<std::string, std::string>& hbase_settings);

// Logs in again from the keytab when the ticket has passed 80 % of its lifetime; else only
// reports the ticket. Needs a successful KerberosLoginFromKeytab first.
Result<KerberosTicket> KerberosCheckAndRelogin(JvmHost& jvm);

}  // namespace presplit::daemon
