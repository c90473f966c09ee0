# presplit on HBase 2.6: add to conf/hbase-env.sh on every HMaster and RegionServer.
# The presplit package installs presplit-hbase.jar in /usr/share/presplit and
# libpresplit_jni.so in /usr/lib/presplit; for copies elsewhere set PRESPLIT_JAR and
# PRESPLIT_LIB_DIR before these lines.
# The jar also carries the library for linux-x86_64 (extracted to a temporary file when it is not
# found on java.library.path); the explicit path below is preferred in production.
# The HMaster needs the jar too: its BucketGuardObserver, a re-salting migration's replication
# peer (the HMaster instantiates the peer's endpoint class when the peer is added; the
# RegionServers run it, with the library), and the migration's MigrationGuard (a table
# coprocessor: the HMaster checks that its class loads before it accepts the table change).
PRESPLIT_JAR=${PRESPLIT_JAR:-/usr/share/presplit/presplit-hbase.jar}
PRESPLIT_LIB_DIR=${PRESPLIT_LIB_DIR:-/usr/lib/presplit}
export HBASE_CLASSPATH="${HBASE_CLASSPATH:+$HBASE_CLASSPATH:}$PRESPLIT_JAR"
# bin/hbase appends a -Djava.library.path of its own (HBase's lib/native, Hadoop's native
# libraries) after HBASE_OPTS, and the JVM keeps the last one: HBASE_LIBRARY_PATH puts the
# directory into that one too. The -D covers an installation where bin/hbase adds none.
export HBASE_LIBRARY_PATH="${HBASE_LIBRARY_PATH:+$HBASE_LIBRARY_PATH:}$PRESPLIT_LIB_DIR"
export HBASE_OPTS="$HBASE_OPTS -Djava.library.path=$PRESPLIT_LIB_DIR"
