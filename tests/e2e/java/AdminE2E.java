/*
 * AdminE2E: the portal API (io.presplit.admin.PresplitAdmin) end to end on a real cluster with a
 * real presplitd, driven by tests/e2e/test_admin.py.
 *
 *   java -cp presplit-hbase.jar:$(hbase classpath) -Djava.library.path=DIR AdminE2E
 *       --zk Q --root /presplit-x --table NS:T
 *
 * One run: validates a document with a bad bucket count (the pointer), plans and puts a good one,
 * awaits presplitd's ready, writes a second revision with compare-and-set and loses a stale one,
 * then removes the document. Every step checks its own result and exits 1 with the reason on
 * stderr when one is wrong; stdout carries one JSON line of evidence, which the Python side
 * checks against the table HBase really has (HBaseProbe).
 */

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.presplit.admin.PresplitAdmin;
import io.presplit.admin.Plan;
import io.presplit.admin.TableStatus;
import io.presplit.admin.ValidationResult;
import io.presplit.admin.VersionConflictException;
import org.apache.hadoop.hbase.util.Bytes;

public class AdminE2E {

  static String document(String table, String buckets, String description) {
    return "{\"version\": 1, \"table\": \"" + table + "\", \"description\": \"" + description
        + "\", \"layout\": {\"salt\": {\"buckets\": " + buckets + ", \"encoding\": \"decimal\"},"
        + " \"group\": {\"length\": 4}}, \"split\": {\"algorithm\": \"salt-buckets\"},"
        + " \"families\": [{\"name\": \"f\"}]}";
  }

  static void check(boolean ok, String what) {
    if (!ok) {
      System.err.println("AdminE2E: " + what);
      System.exit(1);
    }
  }

  static String quote(String s) {
    return s == null ? "null" : "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  public static void main(String[] args) throws Exception {
    String zk = null;
    String root = null;
    String table = null;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--zk" -> zk = args[i + 1];
        case "--root" -> root = args[i + 1];
        case "--table" -> table = args[i + 1];
        default -> check(false, "unknown argument " + args[i]);
      }
    }
    check(zk != null && root != null && table != null, "--zk, --root and --table are needed");
    try (PresplitAdmin admin = PresplitAdmin.open(zk, root)) {
      ValidationResult bad = admin.validate(document(table, "0", "bad"));
      check(!bad.isValid() && bad.errors().size() == 1, "a zero bucket count was accepted");
      check(admin.list().isEmpty() || !admin.list().contains(table), "documented before the put");

      String good = document(table, "6", "first");
      ValidationResult valid = admin.validate(good);
      check(valid.isValid(), "the good document was refused: " + valid);
      Plan plan = admin.plan(good);
      List<String> keys = new ArrayList<>();
      for (byte[] k : plan.splitKeys()) {
        keys.add(Bytes.toStringBinary(k));
      }
      int version = admin.put(good, PresplitAdmin.NEW);
      TableStatus status = admin.awaitApplied(table, version, Duration.ofSeconds(180));
      check(status.configVersion() == version, "status of another version: " + status);

      // A second operator saves on top of the version read; the first one's save is stale.
      int second = admin.put(document(table, "6", "second"), version);
      check(second == version + 1, "compare-and-set wrote version " + second);
      int current = -2;
      try {
        admin.put(document(table, "6", "stale"), version);
        check(false, "a stale compare-and-set was written");
      } catch (VersionConflictException e) {
        current = e.currentVersion();
      }
      check(admin.get(table).get().json().contains("\"second\""), "the stale put overwrote");
      TableStatus again = admin.awaitApplied(table, second, Duration.ofSeconds(180));

      boolean removed = admin.remove(table);
      boolean gone = admin.get(table).isEmpty();
      StringBuilder keyList = new StringBuilder("[");
      for (String k : keys) {
        keyList.append(keyList.length() > 1 ? ", " : "").append(quote(k));
      }
      keyList.append("]");
      System.out.println("{\"pointer\": " + quote(bad.errors().get(0).pointer())
          + ", \"message\": " + quote(bad.errors().get(0).message())
          + ", \"canonical_table\": " + quote(valid.table())
          + ", \"plan_keys\": " + keyList + ", \"plan_regions\": " + plan.regions()
          + ", \"version\": " + version + ", \"phase\": " + quote(status.phase())
          + ", \"regions\": " + status.regions() + ", \"physical_table\": "
          + quote(status.physicalTable()) + ", \"second\": " + second
          + ", \"conflict_current\": " + current + ", \"second_phase\": "
          + quote(again.phase()) + ", \"removed\": " + removed + ", \"gone\": " + gone + "}");
    }
  }
}
