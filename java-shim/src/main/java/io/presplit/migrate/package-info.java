/**
 * What presplitd's migration engine calls, through the daemon's embedded JVM, to move and check
 * the cells of a re-salting migration (a table copied from an old generation, salted one way, to
 * a new one salted another). Static methods, simple types, results as JSON strings; errors are
 * thrown ({@link IllegalArgumentException} for bad input, which changes nothing; {@link
 * IOException} when HBase fails; a rerun of the same call is always safe).
 *
 * <p>The entry points, by concern: {@link CopyBridge} (the copy), {@link CaptureBridge} (the change
 * capture), {@link VerificationBridge} (digests, differences, the final check),
 * {@link GenerationBridge} (the generations' tables: creation, settings, the guard, flags),
 * {@link ThrottleBridge} (the adaptive throttle) and {@link BridgeConnection} (the shared
 * connection). presplitd's daemon/migrate/bridge_calls.def declares each call once.
 *
 * <h2>Conventions</h2>
 *
 * <ul>
 *   <li>Layouts are the JSON of a status znode's {@code layout} object (as a table document's
 *       {@code layout}); null or {@code {}} = unsalted.
 *   <li>Row keys are {@code byte[]}; an empty (or null) key is an open end. Ranges are
 *       {@code [fromRow, endRow)}; time ranges {@code [minTs, maxTs)} in milliseconds
 *       ({@code Long.MAX_VALUE} for no upper bound; an empty range [t, t) matches nothing).
 *   <li>Re-keying (old salt stripped, new salt computed from the logical key) is libpresplit's
 *       ({@code RekeyAll}, one JNI call per batch of rows), loaded by
 *       {@link io.presplit.hbase.nativelib.NativeLibrary}: from {@code java.library.path} (in
 *       presplitd: {@code jvm_options = -Djava.library.path=DIR}), else from the copy inside
 *       presplit-hbase.jar. Without it every re-keying call fails; nothing falls back to Java.
 *   <li>Every cell keeps its timestamp; a copy writes every version the scan returns (all the
 *       family keeps). Writing a cell twice (same row, column, timestamp, value) leaves the table
 *       as writing it once, so every call is idempotent and a chunk may be copied again.
 *   <li>One HBase {@link Connection} per JVM ({@link BridgeConnection}), opened on first use:
 *       from {@link BridgeConnection#configure}'s
 *       settings when called, else from the configuration of the last
 *       {@link AdminBridge#connect}, else from {@code hbase-site.xml} on the classpath; the
 *       "hfile" engine's bulk loads go through it as well. Every method is thread-safe; the
 *       daemon runs one region per thread.
 * </ul>
 *
 * <h2>Digest</h2>
 *
 * Rows, cells and the sum modulo 2^64 of XXH64 (seed 0) over each live cell's length-prefixed
 * (logical key, family, qualifier, timestamp, value), as 16 hex digits ({@link CellDigest}).
 * Counts and digest equal = the same cells. The digest of a {@link CopyBridge#copyChunk} is that
 * of the
 * source cells it copied, so it equals {@link VerificationBridge#digestPartitions} over the same range.
 */
package io.presplit.migrate;

import io.presplit.hbase.admin.AdminBridge;
import java.io.IOException;
import org.apache.hadoop.hbase.client.Connection;
