package io.presplit.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.hadoop.hbase.TableName;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;

/**
 * The snapshot rule: a problem of the control plane (status {@code error} or {@code invalid})
 * never stops writers of the same physical table; a real change does.
 */
class TableSnapshotTest {

  static final TableName T = TableName.valueOf("ns:t");
  static final KeyLayout TEN = layout(10);
  static final KeyLayout TWENTY = layout(20);

  static KeyLayout layout(int buckets) {
    return KeyLayout.fromDocument(JsonParser.parseString("{\"salt\": {\"buckets\": " + buckets
        + ", \"encoding\": \"decimal\", \"width\": 2}, \"group\": {\"length\": 4}}")
        .getAsJsonObject());
  }

  static TableSnapshot status(String phase, TableName table, long generation, KeyLayout layout,
      boolean layoutFromStatus) {
    return new TableSnapshot("ns:t", phase, phase.equals("error") ? "HMaster down" : null, table,
        generation, layout, 3, 7, layoutFromStatus);
  }

  static TableSnapshot ready() {
    return status("ready", T, 1, TEN, true);
  }

  @Test
  void errorOrInvalidForTheSameTableKeepsTheLastUsableSnapshot() throws Exception {
    for (String phase : new String[] {"error", "invalid"}) {
      TableSnapshot previous = ready();
      TableSnapshot next = TableSnapshot.following(previous, status(phase, T, 1, TEN, true));
      assertTrue(next.isUsable(), phase);
      assertTrue(next.isCarriedOver(), phase);
      next.checkUsable(); // does not throw
      assertEquals(phase, next.phase(), "the status's phase is still reported");
      assertSame(previous.layout(), next.layout());
      assertEquals(T, next.physicalTable());
      assertEquals(1, next.generation());
      assertEquals(7, next.statusVersion());
      assertTrue(next.toString().contains("carried over"), next.toString());
    }
  }

  @Test
  void aLastingProblemStaysCarriedOverAndAUsableStatusEndsIt() {
    TableSnapshot carried = TableSnapshot.following(ready(), status("error", T, 1, TEN, true));
    TableSnapshot still = TableSnapshot.following(carried, status("invalid", T, 1, TEN, true));
    assertTrue(still.isCarriedOver());
    assertSame(carried.layout(), still.layout());
    TableSnapshot back = status("drift", T, 1, TEN, true);
    TableSnapshot after = TableSnapshot.following(still, back);
    assertSame(back, after);
    assertFalse(after.isCarriedOver());
    assertTrue(after.isUsable());
  }

  @Test
  void aRealChangeStopsWriters() {
    TableSnapshot[] changes = {
        status("error", T, 2, TEN, true), // another generation
        status("invalid", TableName.valueOf("ns:t_g2"), 1, TEN, true), // another table
        status("error", T, 1, TWENTY, true), // the daemon names another layout
        status("error", T, 1, TEN, false), // the status names no layout: nothing vouched for
        status("creating", T, 1, TEN, true), // no table yet
        status("error", null, 1, TEN, true),
    };
    for (TableSnapshot change : changes) {
      TableSnapshot next = TableSnapshot.following(ready(), change);
      assertSame(change, next, change.toString());
      assertFalse(next.isUsable(), change.toString());
      TableNotReadyException e = assertThrows(TableNotReadyException.class, next::checkUsable);
      assertTrue(e.getMessage().contains(change.phase()), e.getMessage());
    }
    TableSnapshot noStatus = new TableSnapshot("ns:t", null, null, null, 0, TEN, 4, -1, false);
    assertSame(noStatus, TableSnapshot.following(ready(), noStatus));
  }

  @Test
  void nothingIsCarriedOverWithoutAUsableSnapshotFirst() {
    TableSnapshot error = status("error", T, 1, TEN, true);
    assertSame(error, TableSnapshot.following(null, error));
    assertFalse(TableSnapshot.following(null, error).isUsable());
    TableSnapshot creating = status("creating", T, 1, TEN, true);
    assertSame(error, TableSnapshot.following(creating, error));
  }

  @Test
  void aUsableStatusAlwaysWinsEvenWithAnotherLayout() {
    // drift with the table's layout after a switch to generation 2 on another table: follow it.
    TableSnapshot switched = status("ready", TableName.valueOf("ns:t_g2"), 2, TWENTY, true);
    assertSame(switched, TableSnapshot.following(ready(), switched));
  }
}
