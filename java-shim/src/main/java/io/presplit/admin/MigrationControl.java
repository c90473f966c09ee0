package io.presplit.admin;

import io.presplit.client.JsonBounds;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

import org.apache.hbase.thirdparty.com.google.gson.JsonElement;
import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParseException;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * A table's re-salting migration, as {@code presplitctl migration} sees and steers it (same
 * reads, same refusals, same request znode): it reads the plan ({@code <root>/migrations/<t>},
 * presplitd's) and the status's {@code migration} object, and writes only a request
 * ({@code <root>/requests/<t>}) that the leading presplitd acts on between two chunks of the copy
 * or on its next step. With ZooKeeper access control the requests need the portal's identity.
 */
public final class MigrationControl {
  private final PresplitAdmin admin;
  private final String table;

  MigrationControl(PresplitAdmin admin, String table) {
    this.admin = admin;
    this.table = table;
  }

  public String table() {
    return table;
  }

  /**
   * The migration under way (its plan with the status's progress), or its last outcome recorded
   * in the status; empty when there is neither.
   */
  public Optional<MigrationStatus> status() throws IOException {
    State s = read(admin.session());
    JsonObject progress = null;
    Optional<TableStatus> status = admin.status(table);
    if (status.isPresent() && status.get().migration() != null) {
      progress = JsonParser.parseString(status.get().migration()).getAsJsonObject();
    }
    if (s.plan == null && progress == null) {
      return Optional.empty();
    }
    return Optional.of(new MigrationStatus(table, s.plan, progress, s.pendingRequest));
  }

  /**
   * Holds the migration between two chunks or phases. @return true: the request was written
   *
   * @throws MigrationRefusedException after a failed verification (it waits already)
   */
  public boolean pause() throws IOException {
    return request("pause");
  }

  /**
   * Goes on after a pause, a failed verification (verifies again) or an error the migration waits
   * on. @return false when there is nothing to resume (nothing written)
   */
  public boolean resume() throws IOException {
    return request("resume");
  }

  /**
   * Drops the new generation and leaves the table as it was; before the switch only.
   *
   * @throws MigrationRefusedException after the switch (use {@link #rollback()} in the grace)
   */
  public boolean abort() throws IOException {
    return request("abort");
  }

  /**
   * Switches back to the old generation keeping every write made to the new one; in phases
   * {@code catching_up} and {@code grace} (and {@code switching} once the status names the new
   * generation) only.
   *
   * @throws MigrationRefusedException in any other phase
   */
  public boolean rollback() throws IOException {
    return request("rollback");
  }

  private static final class State {
    JsonObject plan; // null: no migration under way
    Stat pendingStat; // null: no pending request
    String pendingRequest = "";
  }

  private State read(ZooKeeper z) throws IOException {
    State s = new State();
    String planPath = admin.migrationPlanPath(table);
    try {
      try {
        byte[] data = z.getData(planPath, false, null);
        s.plan = object(data);
        if (s.plan == null) {
          throw new PresplitAdminException("the migration plan of " + table + " cannot be read");
        }
      } catch (KeeperException.NoNodeException e) {
        s.plan = null;
      }
      String requestPath = requestPath();
      try {
        Stat stat = new Stat();
        byte[] data = z.getData(requestPath, false, stat);
        s.pendingStat = stat;
        JsonObject request = object(data);
        if (request != null && request.has("request") && request.get("request").isJsonPrimitive()) {
          s.pendingRequest = request.get("request").getAsString();
        }
      } catch (KeeperException.NoNodeException e) {
        s.pendingStat = null;
      }
    } catch (KeeperException e) {
      throw admin.refused("read", planPath, e);
    } catch (InterruptedException e) {
      throw PresplitAdmin.interrupted(planPath);
    }
    return s;
  }

  private String requestPath() {
    return admin.requestsPath() + "/" + table;
  }

  /** A JSON object within presplit's bounds, else null. */
  static JsonObject object(byte[] data) {
    if (JsonBounds.problem(data) != null) {
      return null;
    }
    try {
      JsonElement e = JsonParser.parseString(new String(data, StandardCharsets.UTF_8));
      return e.isJsonObject() ? e.getAsJsonObject() : null;
    } catch (JsonParseException e) {
      return null;
    }
  }

  static String string(JsonObject o, String key) {
    JsonElement e = o == null ? null : o.get(key);
    return e != null && e.isJsonPrimitive() ? e.getAsString() : "";
  }

  private boolean request(String action) throws IOException {
    ZooKeeper z = admin.session();
    State s = read(z);
    if (s.plan == null) {
      throw new MigrationRefusedException("no migration of " + table + " is under way");
    }
    String phase = string(s.plan, "phase");
    // presplitd's phase table decides (MigrationPhases); in `switching` the status says whether
    // readers use the new generation already.
    MigrationPhases.Phase rules = MigrationPhases.phase(phase).orElseThrow(() ->
        new MigrationRefusedException("the migration plan of " + table + " is in phase '" + phase
            + "', which this PresplitAdmin does not know (older than the presplitd that wrote"
            + " it?); nothing requested"));
    MigrationPhases.Rule rule = rules.requests().get(action);
    boolean statusNamesTarget = rules.switched();
    if (rule != null && rule.verdict().conditional()) {
      Optional<TableStatus> status = admin.status(table);
      if (status.isEmpty() || status.get().physicalTable() == null) {
        throw new PresplitAdminException("the status of " + table + " cannot be read to tell"
            + " whether the switch happened; nothing requested (try again)");
      }
      statusNamesTarget = status.get().physicalTable().equals(string(s.plan, "target"));
    }
    Optional<String> refused = MigrationPhases.refusal(rules, action, statusNamesTarget, table,
        string(s.plan, "source"), string(s.plan, "target"));
    if (refused.isPresent()) {
      throw new MigrationRefusedException(refused.get());
    }
    if (action.equals("resume")) {
      boolean paused = s.plan.has("paused") && s.plan.get("paused").isJsonPrimitive()
          && s.plan.get("paused").getAsBoolean();
      boolean waitsOnError = !string(s.plan, "error").isEmpty();
      if (!paused && !phase.equals("failed_verification") && !s.pendingRequest.equals("pause")
          && !waitsOnError) {
        return false; // not paused: nothing to resume
      }
    }
    JsonObject request = new JsonObject();
    request.addProperty("request", action);
    request.addProperty("requested_at",
        Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    byte[] data = request.toString().getBytes(StandardCharsets.UTF_8);
    String path = requestPath();
    try {
      if (s.pendingStat != null) {
        z.setData(path, data, s.pendingStat.getVersion());
      } else {
        admin.ensureRequests(z);
        z.create(path, data, admin.requestAcl(), CreateMode.PERSISTENT);
      }
    } catch (KeeperException.BadVersionException | KeeperException.NodeExistsException
        | KeeperException.NoNodeException e) {
      throw new PresplitAdminException("another request for " + table + " was written at the"
          + " same moment; look at its migration status and try again", e);
    } catch (KeeperException e) {
      throw admin.refused("write", path, e);
    } catch (InterruptedException e) {
      throw PresplitAdmin.interrupted(path);
    }
    return true;
  }
}
