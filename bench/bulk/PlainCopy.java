/*
 * PlainCopy: the re-salting copy a user would write without presplit's engines, the baseline of
 * the bulk and migration benchmarks: one scanner over the source (every version, original
 * timestamps, an optional time range), each row re-keyed from the old layout to the new one and
 * put through a BufferedMutator. Self-contained (one file) so any benchmark can compile and run
 * it:
 *
 *   javac -cp presplit-hbase.jar:$(hbase classpath) -d classes bench/bulk/PlainCopy.java
 *   java -cp classes:presplit-hbase.jar:$(hbase classpath) PlainCopy --zk HOST:PORT \
 *       SOURCE OLD_LAYOUT_JSON TARGET NEW_LAYOUT_JSON [MIN_TS MAX_TS]
 *
 * The layouts are the status znode's "layout" objects; the SDK's KeyLayout re-keys (the same
 * keys as libpresplit). Prints {"rows","cells","ms","rows_per_s"} on one line; the target holds
 * every copied cell, durable, when it returns.
 */

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.BufferedMutatorParams;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

import io.presplit.client.KeyLayout;

public class PlainCopy {
  public static void main(String[] args) throws Exception {
    if (args.length < 6 || !args[0].equals("--zk")) {
      System.err.println("usage: PlainCopy --zk HOST:PORT SOURCE OLD_LAYOUT TARGET NEW_LAYOUT"
          + " [MIN_TS MAX_TS]");
      System.exit(2);
    }
    String[] hp = args[1].split(":");
    Configuration conf = HBaseConfiguration.create();
    conf.set("hbase.zookeeper.quorum", hp[0]);
    conf.set("hbase.zookeeper.property.clientPort", hp[1]);
    TableName source = TableName.valueOf(args[2]);
    KeyLayout oldLayout =
        KeyLayout.fromDocument(JsonParser.parseString(args[3]).getAsJsonObject());
    TableName target = TableName.valueOf(args[4]);
    KeyLayout newLayout =
        KeyLayout.fromDocument(JsonParser.parseString(args[5]).getAsJsonObject());
    long minTs = args.length > 7 ? Long.parseLong(args[6]) : 0;
    long maxTs = args.length > 7 ? Long.parseLong(args[7]) : Long.MAX_VALUE;

    long rows = 0;
    long cells = 0;
    long started = System.nanoTime();
    try (Connection c = ConnectionFactory.createConnection(conf);
        Table in = c.getTable(source);
        ResultScanner scanner = in.getScanner(new Scan().readAllVersions()
            .setTimeRange(minTs, maxTs).setCaching(1000).setCacheBlocks(false));
        BufferedMutator out = c.getBufferedMutator(
            new BufferedMutatorParams(target).writeBufferSize(8L << 20))) {
      for (Result r : scanner) {
        byte[] row = newLayout.encode(oldLayout.logicalKey(r.getRow()));
        Put put = new Put(row);
        for (Cell cell : r.rawCells()) {
          put.addColumn(CellUtil.cloneFamily(cell), CellUtil.cloneQualifier(cell),
              cell.getTimestamp(), CellUtil.cloneValue(cell));
          cells++;
        }
        out.mutate(put);
        rows++;
      }
      out.flush();
    }
    long ms = Math.max(1, (System.nanoTime() - started) / 1_000_000);
    System.out.println("{\"rows\":" + rows + ",\"cells\":" + cells + ",\"ms\":" + ms
        + ",\"rows_per_s\":" + (rows * 1000 / ms) + "}");
    System.exit(0);
  }
}
