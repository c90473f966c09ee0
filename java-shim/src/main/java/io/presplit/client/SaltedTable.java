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
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
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
 * <p>Errors: {@link KeyLayoutException} for a key that does not fit the layout (nothing is sent);
 * {@link TableNotReadyException} when the table's status is not {@code ready} (or
 * {@code drift}); HBase's own {@link IOException}s otherwise.
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

  /** Writes a Put whose row is a logical key. */
  public void put(Put logicalPut) throws IOException {
    TableSnapshot s = usable();
    Put salted = salt(s.layout(), logicalPut);
    try (Table t = open(s)) {
      t.put(salted);
    }
  }

  /**
   * Writes Puts whose rows are logical keys, all into one generation. Every key is checked
   * before anything is sent: one key that does not fit refuses the whole batch.
   */
  public void put(List<Put> logicalPuts) throws IOException {
    TableSnapshot s = usable();
    List<Put> salted = new ArrayList<>(logicalPuts.size());
    for (Put p : logicalPuts) {
      salted.add(salt(s.layout(), p));
    }
    try (Table t = open(s)) {
      t.put(salted);
    }
  }

  /** Deletes what a Delete whose row is a logical key names. */
  public void delete(Delete logicalDelete) throws IOException {
    TableSnapshot s = usable();
    Delete salted = salt(s.layout(), logicalDelete);
    try (Table t = open(s)) {
      t.delete(salted);
    }
  }

  /** Deletes a whole row by logical key. */
  public void delete(byte[] logicalKey) throws IOException {
    delete(new Delete(logicalKey));
  }

  /** Deletes by logical keys, all in one generation. */
  public void delete(List<Delete> logicalDeletes) throws IOException {
    TableSnapshot s = usable();
    List<Delete> salted = new ArrayList<>(logicalDeletes.size());
    for (Delete d : logicalDeletes) {
      salted.add(salt(s.layout(), d));
    }
    try (Table t = open(s)) {
      t.delete(salted);
    }
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

  static Put salt(KeyLayout layout, Put logical) throws IOException {
    byte[] row = layout.encode(logical.getRow());
    Put p = new Put(row, logical.getTimestamp());
    CellBuilder b = builder();
    for (List<Cell> cells : logical.getFamilyCellMap().values()) {
      for (Cell c : cells) {
        p.add(withRow(b, row, c));
      }
    }
    return copyMutation(logical, p);
  }

  static Delete salt(KeyLayout layout, Delete logical) throws IOException {
    byte[] row = layout.encode(logical.getRow());
    Delete d = new Delete(row, logical.getTimestamp());
    CellBuilder b = builder();
    for (List<Cell> cells : logical.getFamilyCellMap().values()) {
      for (Cell c : cells) {
        d.add(withRow(b, row, c));
      }
    }
    return copyMutation(logical, d);
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
