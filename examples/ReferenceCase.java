/*
 * The reference case (docs/reference-case.md) with presplit's writer SDK: the history tables `check`
 * (looked up by check_id) and `opinion` (looked up by business_no and buss_type).
 *
 * The tables come from examples/check.json and examples/opinion.json (presplitctl put); the row
 * keys' salts come from those documents, read from ZooKeeper: this program has no bucket count,
 * no modulus and no salt code of its own.
 *
 *   java -cp presplit-hbase.jar:$(hbase classpath) examples/ReferenceCase.java \
 *        [--zk 127.0.0.1:2181] [--root /presplit] [--namespace tinawang] COMMAND
 *
 *   load N                           write N check records and N opinion records
 *   check CHECK_ID                   the records of one check (one bucket-local prefix scan)
 *   opinion BUSINESS_NO BUSS_TYPE    the records of one (business_no, buss_type) pair
 */

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.presplit.client.Md5Keys;
import io.presplit.client.PresplitTables;
import io.presplit.client.SaltedTable;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;

public class ReferenceCase {
  static final byte[] F = Bytes.toBytes("f");

  public static void main(String[] argv) throws Exception {
    String zk = System.getenv().getOrDefault("PRESPLIT_ZK_QUORUM", "127.0.0.1:2181");
    String root = "/presplit";
    String ns = "tinawang";
    List<String> args = new ArrayList<>(List.of(argv));
    while (!args.isEmpty() && args.get(0).startsWith("--")) {
      String flag = args.remove(0);
      String value = args.remove(0);
      switch (flag) {
        case "--zk": zk = value; break;
        case "--root": root = value; break;
        case "--namespace": ns = value; break;
        default: throw new IllegalArgumentException("unknown flag " + flag);
      }
    }
    if (args.isEmpty()) {
      System.err.println("usage: ReferenceCase [--zk Q] [--root R] [--namespace NS] "
          + "load N | check CHECK_ID | opinion BUSINESS_NO BUSS_TYPE");
      System.exit(2);
    }
    Configuration conf = HBaseConfiguration.create();
    String[] hostPort = zk.split(",")[0].split(":");
    conf.set("hbase.zookeeper.quorum", hostPort[0]);
    conf.set("hbase.zookeeper.property.clientPort", hostPort.length > 1 ? hostPort[1] : "2181");
    int rc = 0;
    try (Connection hbase = ConnectionFactory.createConnection(conf);
        PresplitTables tables = PresplitTables.open(hbase, zk, root)) {
      SaltedTable check = tables.table(ns + ":check");
      SaltedTable opinion = tables.table(ns + ":opinion");
      switch (args.get(0)) {
        case "load":
          load(check, opinion, Integer.parseInt(args.get(1)));
          break;
        case "check":
          printCheck(check, args.get(1));
          break;
        case "opinion":
          printOpinion(opinion, args.get(1), args.get(2));
          break;
        default:
          System.err.println("unknown command " + args.get(0));
          rc = 2;
      }
    }
    System.out.flush();
    Runtime.getRuntime().halt(rc); // HBase client threads may linger
  }

  /** Row key of a check record: MD5(check_id) + id; the SDK adds the salt. */
  static byte[] checkKey(String checkId, String id) {
    return Md5Keys.hashedGroupKey(checkId, id);
  }

  /** Group of an opinion record: MD5 of business_no NUL buss_type. */
  static String opinionGroup(String businessNo, String bussType) {
    return Md5Keys.md5Hex(businessNo + "\0" + bussType);
  }

  static void load(SaltedTable check, SaltedTable opinion, int n) throws Exception {
    String[] types = {"A", "B", "C"};
    List<Put> checks = new ArrayList<>();
    List<Put> opinions = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String id = Md5Keys.md5Hex("record-" + i); // 32 random-looking hex characters
      String checkId = String.format("CHK%06d", i % 100);
      checks.add(new Put(checkKey(checkId, id))
          .addColumn(F, Bytes.toBytes("check_id"), Bytes.toBytes(checkId))
          .addColumn(F, Bytes.toBytes("result"), Bytes.toBytes(i % 7 == 0 ? "fail" : "pass")));
      String businessNo = String.format("BN%05d", i % 40);
      String bussType = types[i % 3];
      opinions.add(new Put(Bytes.toBytes(opinionGroup(businessNo, bussType) + id))
          .addColumn(F, Bytes.toBytes("business_no"), Bytes.toBytes(businessNo))
          .addColumn(F, Bytes.toBytes("buss_type"), Bytes.toBytes(bussType))
          .addColumn(F, Bytes.toBytes("text"), Bytes.toBytes("opinion " + i)));
      if (checks.size() == 500) {
        check.put(checks);
        opinion.put(opinions);
        checks.clear();
        opinions.clear();
      }
    }
    check.put(checks);
    opinion.put(opinions);
    System.out.println("loaded " + n + " check records into " + check.snapshot().physicalTable()
        + " (" + check.snapshot().buckets() + " buckets) and " + n + " opinion records into "
        + opinion.snapshot().physicalTable() + " (" + opinion.snapshot().buckets() + " buckets)");
  }

  static String value(Result r, String column) {
    byte[] v = r.getValue(F, Bytes.toBytes(column));
    return v == null ? "" : new String(v, StandardCharsets.UTF_8);
  }

  static void printCheck(SaltedTable check, String checkId) throws Exception {
    check.scanGroup(Bytes.toBytes(Md5Keys.md5Hex(checkId))); // warms the connection's region cache
    long start = System.nanoTime();
    List<Result> rows = check.scanGroup(Bytes.toBytes(Md5Keys.md5Hex(checkId)));
    long micros = (System.nanoTime() - start) / 1000;
    System.out.println("check_id " + checkId + ": " + rows.size() + " records (" + micros
        + " us for the look-up: one prefix scan)");
    for (Result r : rows) {
      String key = Bytes.toString(r.getRow());
      System.out.println("  id=" + key.substring(32) + " check_id=" + value(r, "check_id")
          + " result=" + value(r, "result"));
    }
  }

  static void printOpinion(SaltedTable opinion, String businessNo, String bussType)
      throws Exception {
    opinion.scanGroup(Bytes.toBytes(opinionGroup(businessNo, bussType))); // warms the connection's region cache
    long start = System.nanoTime();
    List<Result> rows = opinion.scanGroup(Bytes.toBytes(opinionGroup(businessNo, bussType)));
    long micros = (System.nanoTime() - start) / 1000;
    System.out.println("business_no " + businessNo + ", buss_type " + bussType + ": "
        + rows.size() + " records (" + micros + " us for the look-up: one prefix scan)");
    for (Result r : rows) {
      String key = Bytes.toString(r.getRow());
      System.out.println("  id=" + key.substring(32) + " business_no=" + value(r, "business_no")
          + " type=" + value(r, "buss_type") + " text=" + value(r, "text"));
    }
  }
}
