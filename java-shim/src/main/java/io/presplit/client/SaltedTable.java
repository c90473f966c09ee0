package io.presplit.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;

import org.apache.hadoop.hbase.ByteBufferExtendedCell;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellBuilder;
import org.apache.hadoop.hbase.CellBuilderFactory;
import org.apache.hadoop.hbase.CellBuilderType;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.CheckAndMutate;
import org.apache.hadoop.hbase.client.CheckAndMutateResult;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.metrics.ScanMetrics;
import org.apache.hadoop.hbase.io.TimeRange;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * One logical table of presplit: reads and writes by <em>logical key</em> (group + rest); the SDK
 * adds the salt of the table's current generation and strips it from what it returns.
 *
 * <p>Every operation takes the table's current {@link TableSnapshot} once, when it starts, and
 * uses that snapshot's physical table and layout to its end (a batch put or a scan included),
 * so a generation switch never mixes two layouts in one operation. Thread-safe.
 *
 * <p>During a re-salting switch presplitd pauses writes for a bounded time (the status's
 * {@code migration.writes_paused_until_ms}, {@link TableSnapshot#writesPausedUntilMs()}): writes
 * wait for the switch (or its end without one) and then go to the generation the status names;
 * reads are not held. A write refused by the read-only old generation is sent once more to the
 * new one.
 *
 * <p>Errors: {@link KeyLayoutException} for a key that does not fit the layout (nothing is sent);
 * {@link TableNotReadyException} when the table's status is not {@code ready} (or
 * {@code drift}); {@link SwitchInProgressException} (a TableNotReadyException) when a write was
 * refused by a read-only generation and no switch came in time; HBase's own
 * {@link IOException}s otherwise.
 */
public final class SaltedTable {

  private final PresplitTables tables;
  private final PresplitTables.Handle handle;

  SaltedTable(PresplitTables tables, PresplitTables.Handle handle) {
    this.tables = tables;
    this.handle = handle;
  }

  /** The logical table name, {@code namespace:qualifier}. */
  public String name() {
    return handle.name;
  }

  /** The current snapshot (physical table, generation, layout). */
  public TableSnapshot snapshot() {
    return handle.current.get();
  }

  /** The current generation's layout. */
  public KeyLayout layout() {
    return snapshot().layout();
  }

  /** The current snapshot, checked usable. */
  private TableSnapshot usable() throws TableNotReadyException {
    TableSnapshot s = handle.current.get();
    s.checkUsable();
    return s;
  }

  /**
   * Waits until the table's status is ready (or drift).
   *
   * @throws TableNotReadyException when it is not within {@code timeout}
   */
  public TableSnapshot awaitReady(Duration timeout) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      TableSnapshot s = handle.current.get();
      if (s.isUsable()) {
        return s;
      }
      if (System.nanoTime() > deadline) {
        s.checkUsable();
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted while waiting for " + name());
      }
      tables.refreshQuietly(handle);
    }
  }

  /** The row key (salt + logical key) of a logical key in the current generation. */
  public byte[] rowKey(byte[] logicalKey) {
    return snapshot().layout().encode(logicalKey);
  }

  /**
   * The previous generation to read besides {@code s}'s, or null: only with
   * {@link PresplitTables.Options#readBothGenerationsDuringMigration} and while a migration's
   * catch-up is not done.
   */
  private TableSnapshot previousToRead(TableSnapshot s) {
    return tables.options().readBothGenerationsDuringMigration ? s.previousGeneration() : null;
  }

  private Table open(TableSnapshot s) throws IOException {
    return tables.connection().getTable(s.physicalTable());
  }

  // ---- writes -------------------------------------------------------------------------------
  //
  // A write (put, delete, increment, append, checkAndMutate) goes to the generation the status
  // names. While the status says writes are paused (presplitd drains the generation before a
  // switch: migration.writes_paused_until_ms), it first waits for the status that ends the pause
  // (PresplitTables.awaitWritesResumed). A write refused because its generation is read-only
  // (sent just before the pause, or by a process that saw the pause late) waits for the status
  // that names the next generation and is sent there once (see ReadOnlyRefusal for why that is
  // safe, increments included); else it fails with SwitchInProgressException. Any other failure
  // is HBase's, as it is.

  /** Writes a Put whose row is a logical key. */
  public void put(Put logicalPut) throws IOException {
    writeOne(logicalPut, SaltedTable::salt, withoutAnswer(Table::put));
  }

  /**
   * Writes Puts whose rows are logical keys, all into one generation. Every key is checked
   * before anything is sent: one key that does not fit refuses the whole batch.
   */
  public void put(List<Put> logicalPuts) throws IOException {
    writeAll(logicalPuts, SaltedTable::salt, Table::put);
  }

  /** Deletes what a Delete whose row is a logical key names. */
  public void delete(Delete logicalDelete) throws IOException {
    writeOne(logicalDelete, SaltedTable::salt, withoutAnswer(Table::delete));
  }

  /** Deletes a whole row by logical key. */
  public void delete(byte[] logicalKey) throws IOException {
    delete(new Delete(logicalKey));
  }

  /** Deletes by logical keys, all in one generation. */
  public void delete(List<Delete> logicalDeletes) throws IOException {
    writeAll(logicalDeletes, SaltedTable::salt, Table::delete);
  }

  // Read-modify-writes follow the same rules: held by a pause, sent once more only after the
  // read-only refusal. Their answers carry logical keys.

  /**
   * Increments the columns an Increment whose row is a logical key names; returns the new values
   * (an empty Result when the Increment asks for none). Not idempotent: sent a second time only
   * after the read-only refusal, never after a timeout or any other error.
   */
  public Result increment(Increment logicalIncrement) throws IOException {
    return writeOne(logicalIncrement, SaltedTable::salt,
        (table, layout, salted) -> toLogical(layout, table.increment(salted)));
  }

  /** Appends to the columns an Append whose row is a logical key names; as {@link #increment}. */
  public Result append(Append logicalAppend) throws IOException {
    return writeOne(logicalAppend, SaltedTable::salt,
        (table, layout, salted) -> toLogical(layout, table.append(salted)));
  }

  /**
   * HBase's atomic check-and-mutate of one row ({@link Table#checkAndMutate(CheckAndMutate)}): its
   * row, the row of its mutation and of every mutation of its RowMutations are one logical key,
   * salted together. The condition's filter, if any, sees the stored (salted) row. Sent a second
   * time only after the read-only refusal, whose condition was never evaluated.
   *
   * @throws IllegalArgumentException when a mutation's row is not the CheckAndMutate's (nothing
   *     is sent, and the call is not held by a pause)
   */
  public CheckAndMutateResult checkAndMutate(CheckAndMutate logicalCheckAndMutate)
      throws IOException {
    requireOneRow(logicalCheckAndMutate);
    return writeOne(logicalCheckAndMutate, SaltedTable::salt,
        (table, layout, salted) -> toLogical(layout, table.checkAndMutate(salted)));
  }

  /**
   * Refuses a CheckAndMutate whose mutations are not all of its row. HBase's builders check this
   * when they are called, but a row array changed afterwards (a Put made with
   * {@code rowIsImmutable}) escapes them; salted one by one, such rows would be sent to different
   * buckets as one atomic operation.
   */
  private void requireOneRow(CheckAndMutate logical) {
    byte[] row = logical.getRow();
    Row action = logical.getAction();
    List<Mutation> mutations = action instanceof RowMutations
        ? ((RowMutations) action).getMutations()
        : List.of((Mutation) action);
    if (action instanceof RowMutations && !Bytes.equals(row, action.getRow())) {
      throw mixedRows(row, action.getRow(), "RowMutations");
    }
    for (Mutation m : mutations) {
      if (!Bytes.equals(row, m.getRow())) {
        throw mixedRows(row, m.getRow(), m.getClass().getSimpleName());
      }
    }
  }

  private IllegalArgumentException mixedRows(byte[] row, byte[] other, String kind) {
    return new IllegalArgumentException("table " + name() + ": a CheckAndMutate of row '"
        + Bytes.toStringBinary(row) + "' holds a " + kind + " of row '"
        + Bytes.toStringBinary(other) + "': a CheckAndMutate applies to one row (its condition's)"
        + "; nothing was sent");
  }

  @FunctionalInterface
  private interface Salter<M> {
    M salt(KeyLayout layout, M logical) throws IOException;
  }

  @FunctionalInterface
  private interface Sender<M> {
    void send(Table table, M salted) throws IOException;
  }

  /**
   * Sends one salted operation and returns HBase's answer with logical keys ({@code layout} is
   * the one the operation was salted with).
   */
  @FunctionalInterface
  private interface Call<M, R> {
    R send(Table table, KeyLayout layout, M salted) throws IOException;
  }

  /** A write HBase answers with nothing (put, delete). */
  private static <M> Call<M, Void> withoutAnswer(Sender<M> sender) {
    return (table, layout, salted) -> {
      sender.send(table, salted);
      return null;
    };
  }

  /** The handle of the table's snapshots (for tests). */
  PresplitTables.Handle handle() {
    return handle;
  }

  /** A write's snapshot, and whether a pause held the write before it got it. */
  private static final class Writable {
    final TableSnapshot snapshot;
    final boolean heldByPause;

    Writable(TableSnapshot snapshot, boolean heldByPause) {
      this.snapshot = snapshot;
      this.heldByPause = heldByPause;
    }
  }

  /** The snapshot a write uses: once any pause of writes is over, checked usable. */
  private Writable writable() throws IOException {
    boolean paused = handle.current.get().writesPausedAt(System.currentTimeMillis());
    TableSnapshot s = tables.awaitWritesResumed(handle);
    s.checkUsable();
    return new Writable(s, paused);
  }

  /**
   * One write, and HBase's answer to it. Sent a second time only after the read-only refusal,
   * which the RegionServer gives before it applies anything: that is what makes the rule safe for
   * an increment or an append too, which must never be sent again after an outcome that is not
   * known (a timeout).
   */
  private <M, R> R writeOne(M logical, Salter<M> salter, Call<M, R> call) throws IOException {
    Writable w = writable();
    TableSnapshot s = w.snapshot;
    M salted = salter.salt(s.layout(), logical);
    try (Table t = open(s)) {
      return call.send(t, s.layout(), salted);
    } catch (IOException e) {
      if (!ReadOnlyRefusal.is(e)) {
        throw e;
      }
      TableSnapshot next = nextAfterRefusal(s, w.heldByPause, e);
      M again = salter.salt(next.layout(), logical);
      try (Table t = open(next)) {
        return call.send(t, next.layout(), again);
      } catch (IOException e2) {
        throw ReadOnlyRefusal.is(e2) ? switchInProgress(next, e2) : e2;
      }
    }
  }

  /**
   * A batch into one generation. When some of its actions are refused as read-only (and nothing
   * else failed), only those are sent once more, to the next generation; the others were
   * applied and stay where they are (the migration's capture carries them over).
   */
  private <M extends Mutation> void writeAll(List<M> logical, Salter<M> salter,
      Sender<List<M>> sender) throws IOException {
    Writable w = writable();
    TableSnapshot s = w.snapshot;
    List<M> salted = saltAll(s.layout(), logical, salter);
    try (Table t = open(s)) {
      // A copy: Table.delete(List) leaves only the failed actions in the list it is given.
      sender.send(t, new ArrayList<>(salted));
      return;
    } catch (IOException e) {
      List<Integer> refused = ReadOnlyRefusal.refusedActions(e, salted);
      if (refused == null) {
        throw e;
      }
      TableSnapshot next = nextAfterRefusal(s, w.heldByPause, e);
      List<M> retry = new ArrayList<>(refused.size());
      for (int i : refused) {
        retry.add(logical.get(i));
      }
      try (Table t = open(next)) {
        sender.send(t, saltAll(next.layout(), retry, salter));
      } catch (IOException e2) {
        throw ReadOnlyRefusal.is(e2) ? switchInProgress(next, e2) : e2;
      }
    }
  }

  private static <M> List<M> saltAll(KeyLayout layout, List<M> logical, Salter<M> salter)
      throws IOException {
    List<M> salted = new ArrayList<>(logical.size());
    for (M m : logical) {
      salted.add(salter.salt(layout, m));
    }
    return salted;
  }

  /**
   * After {@code used}'s physical table refused a write as read-only: the usable snapshot of
   * the generation to send it to, once the status names one. The refusal itself, as HBase gave
   * it, when the table reports no migration (made read-only outside presplit);
   * {@link SwitchInProgressException} when no status naming another generation came in time,
   * or at once when the write was held by a pause that ended without a switch (the daemon gave
   * up and is making the table writable again).
   */
  private TableSnapshot nextAfterRefusal(TableSnapshot used, boolean heldByPause,
      IOException refusal) throws IOException {
    TableSnapshot now = handle.current.get();
    if (!heldByPause && !used.isMigrating() && !now.isMigrating()
        && java.util.Objects.equals(now.physicalTable(), used.physicalTable())) {
      throw refusal;
    }
    TableSnapshot next =
        tables.awaitAfterReadOnlyRefusal(handle, used.physicalTable(), heldByPause);
    if (java.util.Objects.equals(next.physicalTable(), used.physicalTable())) {
      throw switchInProgress(next, refusal);
    }
    next.checkUsable();
    return next;
  }

  private SwitchInProgressException switchInProgress(TableSnapshot s, IOException refusal) {
    String refusing = s.physicalTable() == null ? "its table"
        : s.physicalTable().getNameWithNamespaceInclAsString();
    return new SwitchInProgressException("table " + name() + ": the write was refused because "
        + refusing + " is read-only: a re-salt switch of the table to another generation is in "
        + "progress" + (s.migrationPhase() == null ? "" : " (migration phase "
        + s.migrationPhase() + ")") + " and its status did not name another generation in "
        + "time; nothing of the refused write was applied, retry it later", s.phase(), refusing,
        refusal);
  }

  // ---- point reads --------------------------------------------------------------------------

  /** A Get whose row is a logical key; the Result's row is the logical key. */
  public Result get(Get logicalGet) throws IOException {
    TableSnapshot s = usable();
    Result active = getIn(s, logicalGet);
    TableSnapshot previous = previousToRead(s);
    if (previous == null) {
      return active;
    }
    return GenerationMerge.merge(active, getIn(previous, logicalGet),
        logicalGet.getMaxVersions());
  }

  private Result getIn(TableSnapshot s, Get logicalGet) throws IOException {
    Get salted = salt(s.layout(), logicalGet);
    try (Table t = open(s)) {
      return toLogical(s.layout(), t.get(salted));
    }
  }

  /** The whole row of a logical key (empty Result when there is none). */
  public Result get(byte[] logicalKey) throws IOException {
    return get(new Get(logicalKey));
  }

  /** Several Gets in one generation, in order. */
  public Result[] get(List<Get> logicalGets) throws IOException {
    TableSnapshot s = usable();
    Result[] active = getIn(s, logicalGets);
    TableSnapshot previous = previousToRead(s);
    if (previous == null) {
      return active;
    }
    Result[] old = getIn(previous, logicalGets);
    for (int i = 0; i < active.length; i++) {
      active[i] = GenerationMerge.merge(active[i], old[i], logicalGets.get(i).getMaxVersions());
    }
    return active;
  }

  private Result[] getIn(TableSnapshot s, List<Get> logicalGets) throws IOException {
    List<Get> salted = new ArrayList<>(logicalGets.size());
    for (Get g : logicalGets) {
      salted.add(salt(s.layout(), g));
    }
    try (Table t = open(s)) {
      Result[] rs = t.get(salted);
      for (int i = 0; i < rs.length; i++) {
        rs[i] = toLogical(s.layout(), rs[i]);
      }
      return rs;
    }
  }

  public boolean exists(Get logicalGet) throws IOException {
    TableSnapshot s = usable();
    if (existsIn(s, logicalGet)) {
      return true;
    }
    TableSnapshot previous = previousToRead(s);
    return previous != null && existsIn(previous, logicalGet);
  }

  private boolean existsIn(TableSnapshot s, Get logicalGet) throws IOException {
    Get salted = salt(s.layout(), logicalGet);
    try (Table t = open(s)) {
      return t.exists(salted);
    }
  }

  public boolean exists(byte[] logicalKey) throws IOException {
    return exists(new Get(logicalKey));
  }

  // ---- scans --------------------------------------------------------------------------------

  /**
   * Every row of one group, in key order, with one prefix scan of its bucket (one round trip
   * for up to {@code groupScanCaching} rows, 100 by default). With a salt computed from the whole
   * key the group's rows are in every bucket: then a merged scan of the group's range.
   */
  public List<Result> scanGroup(byte[] group) throws IOException {
    return scanGroup(group, new Scan());
  }

  /**
   * {@link #scanGroup(byte[])} with the families, columns, filter, versions, limit and caching
   * of a template Scan (its start and stop rows are ignored).
   */
  public List<Result> scanGroup(byte[] group, Scan template) throws IOException {
    List<Result> rows = new ArrayList<>();
    try (ResultScanner scanner = groupScanner(group, template)) {
      for (Result r = scanner.next(); r != null; r = scanner.next()) {
        rows.add(r);
      }
    }
    return rows;
  }

  /**
   * The rows of one group as a scanner (for groups too large to hold at once, or to read the
   * scan's {@link ResultScanner#getScanMetrics()} when the template enables them): the same scan
   * as {@link #scanGroup(byte[], Scan)}, rows with logical keys. Close it.
   */
  public ResultScanner groupScanner(byte[] group, Scan template) throws IOException {
    TableSnapshot s = usable();
    TableSnapshot previous = previousToRead(s);
    if (previous == null) {
      return groupScannerIn(s, group, template);
    }
    ResultScanner active = groupScannerIn(s, group, template);
    try {
      return new GenerationMerge.Scanner(active, groupScannerIn(previous, group, template), false,
          template.getLimit(), template.getMaxVersions());
    } catch (IOException | RuntimeException e) {
      active.close();
      throw e;
    }
  }

  private ResultScanner groupScannerIn(TableSnapshot s, byte[] group, Scan template)
      throws IOException {
    KeyLayout layout = s.layout();
    if (layout.isSalted() && layout.saltFromKey()) {
      byte[] prefix = layout.logicalGroupPrefix(group);
      Scan scan = new Scan(template).withStartRow(prefix, true)
          .withStopRow(KeyLayout.prefixEnd(prefix), false);
      scan.setReversed(false);
      return MergedScanner.open(tables, s, scan);
    }
    byte[] prefix = layout.groupScanPrefix(group);
    Scan scan = new Scan(template).withStartRow(prefix, true)
        .withStopRow(KeyLayout.prefixEnd(prefix), false);
    scan.setReversed(false);
    if (template.getCaching() <= 0) {
      int caching = tables.options().groupScanCaching;
      if (template.getLimit() > 0) {
        caching = Math.min(caching, template.getLimit() + 1);
      }
      scan.setCaching(caching);
    }
    scan.setReadType(Scan.ReadType.PREAD);
    Table t = open(s);
    try {
      return new LogicalScanner(layout, t, t.getScanner(scan));
    } catch (IOException | RuntimeException e) {
      t.close();
      throw e;
    }
  }

  /** One bucket's scanner whose rows come back with logical keys. */
  private static final class LogicalScanner implements ResultScanner {
    private final KeyLayout layout;
    private final Table table;
    private final ResultScanner scanner;

    LogicalScanner(KeyLayout layout, Table table, ResultScanner scanner) {
      this.layout = layout;
      this.table = table;
      this.scanner = scanner;
    }

    @Override
    public Result next() throws IOException {
      return toLogical(layout, scanner.next());
    }

    @Override
    public void close() {
      scanner.close();
      try {
        table.close();
      } catch (IOException e) {
        // nothing to do: the scan is over
      }
    }

    @Override
    public boolean renewLease() {
      return scanner.renewLease();
    }

    @Override
    public ScanMetrics getScanMetrics() {
      return scanner.getScanMetrics();
    }
  }

  /**
   * The rows with logical keys in [startKey, stopKey) across every bucket, merged in logical key
   * order; empty keys = unbounded. Close the scanner.
   */
  public ResultScanner scan(byte[] startKey, byte[] stopKey) throws IOException {
    return scan(new Scan().withStartRow(startKey).withStopRow(stopKey));
  }

  /**
   * A scan whose start and stop rows are logical keys, with HBase's semantics (inclusive start,
   * exclusive stop unless the Scan says otherwise; a reversed scan starts at the high key),
   * across every bucket: each bucket is scanned in parallel and the rows are merged in logical
   * key order (reversed order for a reversed scan). {@link Scan#setLimit} limits the merged
   * result; {@link Scan#setCaching} is each bucket's batch. Rows carry logical keys.
   */
  public ResultScanner scan(Scan logicalScan) throws IOException {
    TableSnapshot s = usable();
    TableSnapshot previous = previousToRead(s);
    if (previous == null) {
      return MergedScanner.open(tables, s, logicalScan);
    }
    ResultScanner active = MergedScanner.open(tables, s, logicalScan);
    try {
      return new GenerationMerge.Scanner(active, MergedScanner.open(tables, previous,
          logicalScan), logicalScan.isReversed(), logicalScan.getLimit(),
          logicalScan.getMaxVersions());
    } catch (IOException | RuntimeException e) {
      active.close();
      throw e;
    }
  }

  // ---- key translation ----------------------------------------------------------------------

  private static CellBuilder builder() {
    return CellBuilderFactory.create(CellBuilderType.DEEP_COPY);
  }

  /** The same cell with another row. */
  static Cell withRow(CellBuilder b, byte[] row, Cell c) {
    b.clear();
    return b.setRow(row).setFamily(CellUtil.cloneFamily(c))
        .setQualifier(CellUtil.cloneQualifier(c)).setTimestamp(c.getTimestamp())
        .setType(c.getType()).setValue(CellUtil.cloneValue(c)).build();
  }

  private static <M extends Mutation> M copyMutation(M from, M to) {
    to.setDurability(from.getDurability());
    for (Map.Entry<String, byte[]> a : from.getAttributesMap().entrySet()) {
      to.setAttribute(a.getKey(), a.getValue());
    }
    if (from.getTTL() != Long.MAX_VALUE) {
      to.setTTL(from.getTTL());
    }
    return to;
  }

  /** Adds a cell to a mutation: each kind has its own public {@code add(Cell)}. */
  @FunctionalInterface
  private interface CellSink<M> {
    void add(M mutation, Cell cell) throws IOException;
  }

  /**
   * {@code salted}, a new mutation of the salted row, with every cell of {@code logical} moved to
   * that row, and the settings every mutation carries.
   */
  private static <M extends Mutation> M withCellsOf(M logical, M salted, CellSink<M> sink)
      throws IOException {
    byte[] row = salted.getRow();
    CellBuilder b = builder();
    for (List<Cell> cells : logical.getFamilyCellMap().values()) {
      for (Cell c : cells) {
        sink.add(salted, withRow(b, row, c));
      }
    }
    return copyMutation(logical, salted);
  }

  static Put salt(KeyLayout layout, Put logical) throws IOException {
    return withCellsOf(logical, new Put(layout.encode(logical.getRow()), logical.getTimestamp()),
        Put::add);
  }

  static Delete salt(KeyLayout layout, Delete logical) throws IOException {
    return withCellsOf(logical,
        new Delete(layout.encode(logical.getRow()), logical.getTimestamp()), Delete::add);
  }

  static Increment salt(KeyLayout layout, Increment logical) throws IOException {
    Increment i = withCellsOf(logical, new Increment(layout.encode(logical.getRow())),
        Increment::add);
    i.setTimestamp(logical.getTimestamp());
    TimeRange tr = logical.getTimeRange();
    i.setTimeRange(tr.getMin(), tr.getMax());
    return i.setReturnResults(logical.isReturnResults());
  }

  static Append salt(KeyLayout layout, Append logical) throws IOException {
    Append a = withCellsOf(logical, new Append(layout.encode(logical.getRow())), Append::add);
    a.setTimestamp(logical.getTimestamp());
    TimeRange tr = logical.getTimeRange();
    a.setTimeRange(tr.getMin(), tr.getMax());
    return a.setReturnResults(logical.isReturnResults());
  }

  /** The same CheckAndMutate on the salted row (the caller checked that its rows are one). */
  static CheckAndMutate salt(KeyLayout layout, CheckAndMutate logical) throws IOException {
    byte[] row = layout.encode(logical.getRow());
    CheckAndMutate.Builder b = CheckAndMutate.newBuilder(row);
    if (logical.hasFilter()) {
      b.ifMatches(logical.getFilter());
    } else {
      b.ifMatches(logical.getFamily(), logical.getQualifier(), logical.getCompareOp(),
          logical.getValue());
    }
    b.timeRange(logical.getTimeRange()).queryMetricsEnabled(logical.isQueryMetricsEnabled());
    Row action = logical.getAction();
    if (action instanceof RowMutations) {
      List<Mutation> mutations = ((RowMutations) action).getMutations();
      List<Mutation> salted = new ArrayList<>(mutations.size());
      for (Mutation m : mutations) {
        salted.add(saltMutation(layout, m));
      }
      return b.build(new RowMutations(row, salted.size()).add(salted));
    }
    Mutation m = saltMutation(layout, (Mutation) action);
    if (m instanceof Put) {
      return b.build((Put) m);
    }
    if (m instanceof Delete) {
      return b.build((Delete) m);
    }
    if (m instanceof Increment) {
      return b.build((Increment) m);
    }
    return b.build((Append) m);
  }

  /** A mutation of any of the four kinds a CheckAndMutate carries, salted. */
  private static Mutation saltMutation(KeyLayout layout, Mutation logical) throws IOException {
    if (logical instanceof Put) {
      return salt(layout, (Put) logical);
    }
    if (logical instanceof Delete) {
      return salt(layout, (Delete) logical);
    }
    if (logical instanceof Increment) {
      return salt(layout, (Increment) logical);
    }
    if (logical instanceof Append) {
      return salt(layout, (Append) logical);
    }
    throw new IllegalArgumentException("a CheckAndMutate cannot carry a "
        + logical.getClass().getName());
  }

  static Get salt(KeyLayout layout, Get logical) throws IOException {
    Get g = new Get(layout.encode(logical.getRow()));
    for (Map.Entry<byte[], NavigableSet<byte[]>> f : logical.getFamilyMap().entrySet()) {
      if (f.getValue() == null || f.getValue().isEmpty()) {
        g.addFamily(f.getKey());
      } else {
        for (byte[] q : f.getValue()) {
          g.addColumn(f.getKey(), q);
        }
      }
    }
    TimeRange tr = logical.getTimeRange();
    if (!tr.isAllTime()) {
      g.setTimeRange(tr.getMin(), tr.getMax());
    }
    for (Map.Entry<byte[], TimeRange> e : logical.getColumnFamilyTimeRange().entrySet()) {
      g.setColumnFamilyTimeRange(e.getKey(), e.getValue().getMin(), e.getValue().getMax());
    }
    g.readVersions(logical.getMaxVersions());
    g.setMaxResultsPerColumnFamily(logical.getMaxResultsPerColumnFamily());
    g.setRowOffsetPerColumnFamily(logical.getRowOffsetPerColumnFamily());
    g.setFilter(logical.getFilter());
    g.setCacheBlocks(logical.getCacheBlocks());
    g.setCheckExistenceOnly(logical.isCheckExistenceOnly());
    g.setConsistency(logical.getConsistency());
    g.setReplicaId(logical.getReplicaId());
    g.setIsolationLevel(logical.getIsolationLevel());
    g.setPriority(logical.getPriority());
    for (Map.Entry<String, byte[]> a : logical.getAttributesMap().entrySet()) {
      g.setAttribute(a.getKey(), a.getValue());
    }
    return g;
  }

  /**
   * A Result of a salted row with the salt stripped from every cell's row. Array-backed cells
   * (what the client decodes from RPC responses) are wrapped, not copied ({@link LogicalCell});
   * a cell backed by a ByteBuffer, whose array accessors copy on every call, is rebuilt once as a
   * KeyValue instead.
   */
  static Result toLogical(KeyLayout layout, Result r) {
    if (r == null || r.isEmpty() || layout.saltWidth() == 0) {
      return r;
    }
    int w = layout.saltWidth();
    Cell[] cells = r.rawCells();
    Cell[] out = new Cell[cells.length];
    for (int i = 0; i < cells.length; i++) {
      Cell c = cells[i];
      if (c.getRowLength() < w) {
        throw new KeyLayoutException("row key '" + Bytes.toStringBinary(c.getRowArray(),
            c.getRowOffset(), c.getRowLength()) + "' is shorter than its salt");
      }
      out[i] = c instanceof ByteBufferExtendedCell ? copyWithoutSalt(c, w) : new LogicalCell(c, w);
    }
    return Result.create(out, r.getExists(), r.isStale(), r.mayHaveMoreCellsInRow());
  }

  /** A CheckAndMutateResult whose Result (of an Increment or Append) carries logical keys. */
  static CheckAndMutateResult toLogical(KeyLayout layout, CheckAndMutateResult r) {
    if (r == null || r.getResult() == null) {
      return r;
    }
    return new CheckAndMutateResult(r.isSuccess(), toLogical(layout, r.getResult()))
        .setMetrics(r.getMetrics());
  }

  @SuppressWarnings("deprecation") // Cell's array accessors for tags and the type byte
  private static Cell copyWithoutSalt(Cell c, int w) {
    return new KeyValue(c.getRowArray(), c.getRowOffset() + w, c.getRowLength() - w,
        c.getFamilyArray(), c.getFamilyOffset(), c.getFamilyLength(),
        c.getQualifierArray(), c.getQualifierOffset(), c.getQualifierLength(),
        c.getTimestamp(), KeyValue.Type.codeToType(c.getTypeByte()),
        c.getValueArray(), c.getValueOffset(), c.getValueLength(),
        c.getTagsArray(), c.getTagsOffset(), c.getTagsLength());
  }
}
