package io.presplit.capture;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.replication.BaseReplicationEndpoint;
import org.apache.hadoop.hbase.replication.ChainWALEntryFilter;
import org.apache.hadoop.hbase.replication.WALEntryFilter;
import org.apache.hadoop.hbase.wal.WAL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * presplit's change capture: a replication endpoint that RegionServers run for one re-salting
 * migration's peer, shipping every WAL edit of the source table to the target table of the same
 * cluster, re-keyed to the target's layout (see {@link WalEntryRekeyer} for what it writes and
 * {@link CaptureSpec} for the peer's configuration).
 *
 * <p>Why replication: the WAL holds every edit of the table, in the order the RegionServer
 * applied it, whatever timestamps the writers chose (ahead of the clock, explicit and old,
 * microseconds), with delete markers already resolved and tags attached. presplitd adds the peer
 * before its copy starts, so the copy covers what was written before and the peer everything
 * after; both write the same cells with the same timestamps where they overlap, which leaves the
 * target as writing them once.
 *
 * <p>Where it runs: on every RegionServer (presplit-hbase.jar is on their classpath for the split
 * policy, and libpresplit_jni for the re-keying), one instance per peer and RegionServer, in the
 * peer's shipper thread; the HMaster only instantiates the class when the peer is added (no native
 * code then). What it costs a RegionServer: reading its WAL once more (HBase's replication source
 * does that for any peer), re-keying (one JNI call per batch) and the writes into the target, as
 * a client of its own cluster.
 *
 * <p>Back-pressure: a batch that cannot be written (the target is splitting, a RegionServer is
 * busy) is refused ({@code false}) after a growing pause; HBase keeps the WAL and offers the same
 * batch again, so nothing is dropped and the source's writers are never slowed by the target.
 * Writes carry tags: the endpoint's connection uses the tag-carrying codec, as HBase's own
 * replication sink does.
 */
public class RekeyingReplicationEndpoint extends BaseReplicationEndpoint {
  private static final Logger LOG = LoggerFactory.getLogger(RekeyingReplicationEndpoint.class);

  /** The codec that sends cell tags over RPC (HBase's replication sink uses it too). */
  static final String TAGS_CODEC = "org.apache.hadoop.hbase.codec.KeyValueCodecWithTags";

  private static final long MAX_PAUSE_MS = 10_000;
  private static final long SUMMARY_INTERVAL_MS = 60_000;

  private volatile CaptureSpec spec;
  private volatile WalEntryRekeyer rekeyer;
  private volatile FlushedBefore flushedBefore = FlushedBefore.NOTHING;
  // The spec this endpoint registered with the CaptureRegistry (null: none, or no more).
  private volatile CaptureSpec registered;
  private volatile Connection connection;
  private int failures;
  private long lastFailureLogMs;
  private long lastSummaryMs;
  private final AtomicLong puts = new AtomicLong();
  private final AtomicLong deletes = new AtomicLong();
  private final AtomicLong acks = new AtomicLong();
  private final AtomicLong unfit = new AtomicLong();
  private final AtomicLong alreadyFlushed = new AtomicLong();

  @Override
  public boolean canReplicateToSameCluster() {
    return true; // the target is a table of this cluster
  }

  @Override
  public UUID getPeerUUID() {
    CaptureSpec s = spec;
    return s != null ? s.mark : ctx.getClusterId();
  }

  /**
   * No scope filter: the source's families keep REPLICATION_SCOPE 0 (a change of the scope would
   * reopen every region of a live table); the peer's table-CFs map names the source table, and
   * the mark filter drops what a capture wrote itself.
   */
  @Override
  protected WALEntryFilter getScopeWALEntryFilter() {
    return null;
  }

  @Override
  public WALEntryFilter getWALEntryfilter() {
    List<WALEntryFilter> filters = new ArrayList<>();
    WALEntryFilter tables = super.getWALEntryfilter();
    if (tables != null) {
      filters.add(tables);
    }
    filters.add(new WALEntryFilter() {
      @Override
      public WAL.Entry filter(WAL.Entry entry) {
        WalEntryRekeyer r = rekeyer;
        return r == null || r.wants(entry) ? entry : null;
      }
    });
    // Edits the copy reads from the store files anyway (see FlushedBefore): dropped before
    // they are batched, so the part of the WAL written before the peer costs a read only.
    filters.add(new WALEntryFilter() {
      @Override
      public WAL.Entry filter(WAL.Entry entry) {
        if (flushedBefore.covers(entry.getKey())) {
          alreadyFlushed.incrementAndGet();
          return null;
        }
        return entry;
      }
    });
    return new ChainWALEntryFilter(filters);
  }

  @Override
  public void start() {
    startAsync();
  }

  @Override
  public void stop() {
    stopAsync();
  }

  @Override
  protected void doStart() {
    try {
      Map<String, String> peerConf = ctx.getPeerConfig().getConfiguration();
      CaptureSpec parsed = CaptureSpec.fromConfiguration(peerConf);
      Configuration conf = new Configuration(ctx.getLocalConfiguration());
      conf.set(HConstants.RPC_CODEC_CONF_KEY, TAGS_CODEC);
      conf.setInt(HConstants.HBASE_CLIENT_RETRIES_NUMBER, 4);
      conf.setInt(HConstants.HBASE_CLIENT_OPERATION_TIMEOUT, 60_000);
      spec = parsed;
      try {
        flushedBefore = FlushedBefore.parse(peerConf.get(CaptureSpec.FLUSHED_KEY));
      } catch (IllegalArgumentException e) { // ship everything: twice is harmless, none is not
        LOG.warn("presplit capture {}: {} unreadable ({}); shipping every edit of the WAL",
            ctx.getPeerId(), CaptureSpec.FLUSHED_KEY, e.getMessage());
        flushedBefore = FlushedBefore.NOTHING;
      }
      rekeyer = WalEntryRekeyer.withLibpresplit(parsed);
      connection = ConnectionFactory.createConnection(conf);
      LOG.info("presplit capture {}: shipping {} to {} (mark {}; edits already flushed before "
          + "the peer was added skipped in {} regions)", ctx.getPeerId(), parsed.source,
          parsed.target, parsed.mark, flushedBefore.regions());
      // The table's MigrationGuards on this RegionServer refuse from now on what this capture
      // cannot carry, until it stops.
      CaptureRegistry.started(parsed.source, parsed.target.getNameAsString());
      registered = parsed;
      notifyStarted();
    } catch (IOException | RuntimeException e) {
      LOG.error("presplit capture {}: cannot start: {}", ctx.getPeerId(), e.toString());
      notifyFailed(e);
    }
  }

  @Override
  protected void doStop() {
    logSummary("stopped");
    CaptureSpec was = registered;
    registered = null;
    if (was != null) {
      CaptureRegistry.stopped(was.source, was.target.getNameAsString());
    }
    Connection c = connection;
    connection = null;
    if (c != null) {
      try {
        c.close();
      } catch (IOException e) {
        LOG.warn("presplit capture {}: closing its connection: {}", ctx.getPeerId(), e.toString());
      }
    }
    notifyStopped();
  }

  @Override
  public boolean replicate(ReplicateContext context) {
    CaptureSpec s = spec;
    Connection c = connection;
    if (s == null || c == null) {
      return pauseAndRefuse(new IOException("the endpoint is not started"));
    }
    WalEntryRekeyer.Batch batch;
    try {
      batch = rekeyer.rekey(context.getEntries());
    } catch (RuntimeException e) { // libpresplit missing or broken: keep the WAL, say why
      return pauseAndRefuse(e);
    }
    if (!batch.mutations().isEmpty()) {
      try (Table table = c.getTable(s.target)) {
        table.batch(batch.mutations(), new Object[batch.mutations().size()]);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return pauseAndRefuse(new InterruptedIOException("interrupted"));
      } catch (IOException | RuntimeException e) {
        return pauseAndRefuse(e);
      }
    }
    if (failures > 0) {
      LOG.info("presplit capture {}: writing to {} again after {} refused batches",
          ctx.getPeerId(), s.target, failures);
      failures = 0;
    }
    puts.addAndGet(batch.puts());
    deletes.addAndGet(batch.deletes());
    acks.addAndGet(batch.acks());
    if (batch.unfit() > 0) {
      unfit.addAndGet(batch.unfit());
      LOG.error("presplit capture {}: {} rows of {} do not fit its layout and were not shipped "
          + "(acknowledged as unfit; presplitd reports them)", ctx.getPeerId(), batch.unfit(),
          s.source);
    }
    long now = System.currentTimeMillis();
    if (now - lastSummaryMs >= SUMMARY_INTERVAL_MS) {
      lastSummaryMs = now;
      logSummary("running");
    }
    return true;
  }

  private void logSummary(String state) {
    CaptureSpec s = spec;
    if (s != null) {
      LOG.info("presplit capture {} ({}): {} -> {}: {} puts, {} delete markers, {} acks, {} unfit "
          + "rows so far; {} WAL entries skipped as flushed before the peer", ctx.getPeerId(),
          state, s.source, s.target, puts.get(), deletes.get(), acks.get(), unfit.get(),
          alreadyFlushed.get());
    }
  }

  /**
   * Back-pressure: waits a growing pause (HBase offers the same batch again at once after a
   * refusal) and refuses the batch. Logs the first failure and then one line a minute.
   */
  private boolean pauseAndRefuse(Exception e) {
    failures++;
    long now = System.currentTimeMillis();
    if (failures == 1 || now - lastFailureLogMs >= SUMMARY_INTERVAL_MS) {
      lastFailureLogMs = now;
      CaptureSpec s = spec;
      LOG.warn("presplit capture {}: batch refused ({} in a row; HBase keeps the WAL and retries): "
          + "writing to {}: {}", ctx.getPeerId(), failures, s == null ? "?" : s.target,
          e.toString());
    }
    long pause = Math.min(MAX_PAUSE_MS, 100L << Math.min(failures, 7));
    try {
      Thread.sleep(pause);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
    }
    return false;
  }
}
