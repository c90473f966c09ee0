package io.presplit.hbase.coprocessor;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * A bounded sample of one region's requests, the CockroachDB/TiKV load-splitting idea: a
 * reservoir of sampled request start keys (weighted by request: every request is one draw), and
 * for each sampled key how many later requests fell left of it, right of it, or spanned it.
 * libpresplit's LoadSampler is the reference; the counting rules are the same:
 * <ul>
 *   <li>a point request (get, put, delete) on key k counts left of candidate c if k &lt; c, else
 *       right;</li>
 *   <li>a range request [start, end) (a scan; empty end = end of the table) counts left if
 *       end &lt;= c, right if start &gt;= c, contained if start &lt; c &lt; end.</li>
 * </ul>
 * Old load fades: every {@code halfLifeMs} each shard halves its counts and its reservoir's draw
 * count, so the candidates and their balance follow the last minutes' requests rather than
 * everything since the region opened (a region that was hot on one key an hour ago is judged on
 * what it serves now), and new keys enter the reservoir as readily as after a reset.
 * Constant memory: {@code shards x capacity} candidates. Handlers do not contend: each thread
 * records into the shard of its thread id and only with {@code tryLock}; a request that finds its
 * shard busy (only a snapshot or a thread with a colliding id can hold it) is counted as skipped
 * instead of waiting.
 */
public final class RegionLoadSampler {
  public static final int DEFAULT_SHARDS = 8;
  public static final int DEFAULT_CAPACITY = 20;

  /** Requests recorded: one in this many, drawn at random (1 records every request). */
  public static final int DEFAULT_SAMPLE_EVERY = 4;

  /** Counts halve every this many milliseconds (0: never). */
  public static final long DEFAULT_HALF_LIFE_MS = 60_000L;

  /** How many recordings a shard makes between two looks at the clock. */
  private static final int CLOCK_CHECK_EVERY = 64;

  private final Shard[] shards;
  private final int sampleEvery;
  private final LongAdder requests = new LongAdder();
  private final LongAdder recorded = new LongAdder();
  private final LongAdder skipped = new LongAdder();

  public RegionLoadSampler() {
    this(DEFAULT_SHARDS, DEFAULT_CAPACITY);
  }

  public RegionLoadSampler(int shardCount, int capacity) {
    this(shardCount, capacity, 1);
  }

  /**
   * @param sampleEvery record one request in this many, at random: the counters stay
   *     proportional to the load (so the balance of a candidate is unbiased) while the handlers
   *     do a fraction of the work; candidates need {@code min-requests} recorded requests.
   */
  public RegionLoadSampler(int shardCount, int capacity, int sampleEvery) {
    this(shardCount, capacity, sampleEvery, 0, System::currentTimeMillis);
  }

  /**
   * @param halfLifeMs counts halve every this many milliseconds of {@code clockMs}; 0 keeps them
   *     from the region's opening on
   * @param clockMs milliseconds (a fake in tests)
   */
  public RegionLoadSampler(int shardCount, int capacity, int sampleEvery, long halfLifeMs,
      LongSupplier clockMs) {
    if (shardCount < 1 || capacity < 1 || sampleEvery < 1 || halfLifeMs < 0) {
      throw new IllegalArgumentException(
          "shards, capacity and sampleEvery must be >= 1, halfLifeMs >= 0");
    }
    this.sampleEvery = sampleEvery;
    shards = new Shard[shardCount];
    long now = clockMs.getAsLong();
    for (int i = 0; i < shardCount; i++) {
      shards[i] = new Shard(capacity, 0x5eed0000L + i, halfLifeMs, clockMs, now);
    }
  }

  /** A get, put, delete, increment or append of one row. */
  public void recordPoint(byte[] row) {
    if (row == null) {
      return;
    }
    record(row, row, true);
  }

  /** A scan of [start, stop); an empty stop is the end of the table. */
  public void recordRange(byte[] start, byte[] stop) {
    record(start == null ? HConstants.EMPTY_BYTE_ARRAY : start,
        stop == null ? HConstants.EMPTY_BYTE_ARRAY : stop, false);
  }

  private void record(byte[] start, byte[] end, boolean point) {
    requests.increment();
    if (sampleEvery > 1 && ThreadLocalRandom.current().nextInt(sampleEvery) != 0) {
      return;
    }
    recorded.increment();
    Shard shard = shards[(int) (Thread.currentThread().getId() % shards.length)];
    if (!shard.lock.tryLock()) {
      skipped.increment();
      return;
    }
    try {
      shard.record(start, end, point);
    } finally {
      shard.lock.unlock();
    }
  }

  /** Requests drawn for recording (one in sampleEvery), including those skipped as busy. */
  public long recorded() {
    return recorded.sum();
  }

  /** Requests seen (including skipped ones). */
  public long requests() {
    return requests.sum();
  }

  /** Requests not counted because their shard was busy. */
  public long skipped() {
    return skipped.sum();
  }

  /** The candidates with their counts, merged across shards (same key: counts added), sorted. */
  public Snapshot snapshot() {
    TreeMap<byte[], long[]> merged = new TreeMap<>(Bytes.BYTES_COMPARATOR);
    for (Shard shard : shards) {
      shard.lock.lock();
      try {
        if (shard.halfLifeMs > 0) {
          shard.decay();
        }
        for (int i = 0; i < shard.size; i++) {
          long[] counts = merged.computeIfAbsent(shard.keys[i], k -> new long[3]);
          counts[0] += shard.left[i];
          counts[1] += shard.right[i];
          counts[2] += shard.contained[i];
        }
      } finally {
        shard.lock.unlock();
      }
    }
    List<byte[]> keys = new ArrayList<>(merged.keySet());
    int n = keys.size();
    long[] left = new long[n];
    long[] right = new long[n];
    long[] contained = new long[n];
    int i = 0;
    for (long[] counts : merged.values()) {
      left[i] = counts[0];
      right[i] = counts[1];
      contained[i] = counts[2];
      i++;
    }
    return new Snapshot(keys.toArray(new byte[0][]), left, right, contained, requests());
  }

  /** Parallel arrays: keys[i] counted left[i], right[i], contained[i] requests. */
  public record Snapshot(byte[][] keys, long[] left, long[] right, long[] contained,
      long requests) {
    public int size() {
      return keys.length;
    }
  }

  private static final class Shard {
    final ReentrantLock lock = new ReentrantLock();
    final byte[][] keys;
    final long[] left;
    final long[] right;
    final long[] contained;
    final SplittableRandom random;
    final long halfLifeMs;
    final LongSupplier clockMs;
    long lastDecayMs;
    int sinceClockCheck;
    int size;
    long seen;

    Shard(int capacity, long seed, long halfLifeMs, LongSupplier clockMs, long nowMs) {
      keys = new byte[capacity][];
      left = new long[capacity];
      right = new long[capacity];
      contained = new long[capacity];
      random = new SplittableRandom(seed);
      this.halfLifeMs = halfLifeMs;
      this.clockMs = clockMs;
      this.lastDecayMs = nowMs;
    }

    /** Halves every count once per half-life that passed (the caller holds the lock). */
    void decay() {
      long now = clockMs.getAsLong();
      long halvings = (now - lastDecayMs) / halfLifeMs;
      if (halvings <= 0) {
        return;
      }
      int shift = (int) Math.min(halvings, 63);
      for (int i = 0; i < size; i++) {
        left[i] >>= shift;
        right[i] >>= shift;
        contained[i] >>= shift;
      }
      seen >>= shift;
      lastDecayMs += halvings * halfLifeMs;
    }

    void record(byte[] start, byte[] end, boolean point) {
      // The clock is read once per CLOCK_CHECK_EVERY recordings: decay is a matter of minutes,
      // and the write path should not pay for a clock read per request.
      if (halfLifeMs > 0 && ++sinceClockCheck >= CLOCK_CHECK_EVERY) {
        sinceClockCheck = 0;
        decay();
      }
      for (int i = 0; i < size; i++) {
        byte[] c = keys[i];
        if (point) {
          if (Bytes.compareTo(start, c) < 0) {
            left[i]++;
          } else {
            right[i]++;
          }
        } else if (end.length > 0 && Bytes.compareTo(end, c) <= 0) {
          left[i]++;
        } else if (Bytes.compareTo(start, c) >= 0) {
          right[i]++;
        } else {
          contained[i]++;
        }
      }
      if (start.length == 0) {
        return; // the start of the table is never a split point
      }
      seen++;
      int slot;
      if (size < keys.length) {
        slot = size++;
      } else {
        long draw = random.nextLong(seen);
        if (draw >= keys.length) {
          return;
        }
        slot = (int) draw;
      }
      keys[slot] = start.clone();
      left[slot] = 0;
      right[slot] = 0;
      contained[slot] = 0;
    }
  }
}
