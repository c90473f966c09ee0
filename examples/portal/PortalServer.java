/*
 * PortalServer: an example portal for presplit table documents, on the JDK's own HTTP server
 * (com.sun.net.httpserver) and io.presplit.admin.PresplitAdmin, nothing else.
 *
 *   java -cp presplit-hbase.jar:<HBase client classpath> PortalServer
 *       --zk QUORUM --root ROOT [--port N] [--auth-file FILE]
 *
 * GET / serves one HTML page (inline script, no external assets) with a textarea for the table
 * document. As the user edits, the page asks /api/validate (each error with its JSON Pointer) and
 * /api/plan (the region preview); Save posts the document to /api/save with the version the page
 * loaded (compare-and-set, 409 naming the stored version when someone saved in between), then
 * the page polls /api/status until presplitd has applied that version. See README.md next to this
 * file for the endpoints.
 */

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.presplit.admin.InvalidDocumentException;
import io.presplit.admin.Plan;
import io.presplit.admin.PresplitAdmin;
import io.presplit.admin.StoredDocument;
import io.presplit.admin.TableStatus;
import io.presplit.admin.ValidationError;
import io.presplit.admin.ValidationResult;
import io.presplit.admin.VersionConflictException;

public final class PortalServer {

  static final String USAGE = String.join("\n",
      "usage: PortalServer --zk QUORUM --root ROOT [--port N] [--auth-file FILE]",
      "",
      "An example portal for presplit table documents: a page that validates a document as it",
      "is edited, previews its regions, saves it with compare-and-set and shows presplitd's",
      "status once applied.",
      "",
      "  --zk QUORUM       ZooKeeper quorum, host:port[,host:port...]",
      "  --root ROOT       presplit's root znode, as presplitd's zk_root (e.g. /presplit)",
      "  --port N          HTTP port on 127.0.0.1 (default 8080; 0 picks a free one)",
      "  --auth-file FILE  ZooKeeper credentials file, as presplitctl --auth-file",
      "  --help            this text");

  /** The largest request body read; a document itself is refused by the validator over 1 MiB. */
  static final int MAX_BODY = 2 << 20;
  /** Split keys shown in the preview; the region count covers them all. */
  static final int PREVIEW_KEYS = 20;

  /** A request the portal refuses, with the HTTP status and the message the user sees. */
  static final class BadRequest extends Exception {
    final int status;

    BadRequest(int status, String message) {
      super(message);
      this.status = status;
    }
  }

  private final PresplitAdmin admin;

  PortalServer(PresplitAdmin admin) {
    this.admin = admin;
  }

  public static void main(String[] args) throws Exception {
    String zk = null;
    String root = null;
    String authFile = null;
    int port = 8080;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--help") || arg.equals("-h")) {
        System.out.println(USAGE);
        return;
      }
      if (i + 1 >= args.length) {
        usageError(arg.startsWith("--") ? arg + " needs a value" : "unexpected " + arg);
      }
      String value = args[++i];
      switch (arg) {
        case "--zk" -> zk = value;
        case "--root" -> root = value;
        case "--auth-file" -> authFile = value;
        case "--port" -> {
          try {
            port = Integer.parseInt(value);
          } catch (NumberFormatException e) {
            port = -1;
          }
          if (port < 0 || port > 65535) {
            usageError("--port " + value + ": not a port number");
          }
        }
        default -> usageError("unknown argument " + arg);
      }
    }
    if (zk == null || root == null) {
      usageError("--zk and --root are required");
    }
    PresplitAdmin.Options options = new PresplitAdmin.Options();
    if (authFile != null) {
      try {
        options.authFile(Path.of(authFile));
      } catch (IOException e) {
        System.err.println("PortalServer: --auth-file " + authFile + ": " + e.getMessage());
        System.exit(2);
      }
    }
    PresplitAdmin admin;
    HttpServer server;
    try {
      admin = PresplitAdmin.open(zk, root, options);
    } catch (IOException e) {
      System.err.println("PortalServer: cannot open ZooKeeper " + zk + ": " + e.getMessage());
      System.exit(1);
      return;
    }
    try {
      server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
    } catch (IOException e) {
      System.err.println("PortalServer: cannot listen on 127.0.0.1:" + port + ": " + e);
      admin.close();
      System.exit(1);
      return;
    }
    PortalServer portal = new PortalServer(admin);
    portal.register(server);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    server.setExecutor(pool);
    server.start();
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      log("stopping");
      server.stop(1);
      pool.shutdown();
      admin.close();
    }));
    log("serving http://127.0.0.1:" + server.getAddress().getPort() + "/ (zk " + zk + ", root "
        + root + ")");
  }

  static void usageError(String message) {
    System.err.println("PortalServer: " + message);
    System.err.println(USAGE);
    System.exit(2);
  }

  static void log(String message) {
    System.err.println(Instant.now() + " portal: " + message);
  }

  // ---- routing ----

  /** What a handler answers: an HTTP status and a JSON body. */
  record Reply(int status, String json) {}

  interface Api {
    Reply handle(HttpExchange exchange) throws Exception;
  }

  void register(HttpServer server) {
    server.createContext("/", exchange -> {
      try (exchange) {
        String path = exchange.getRequestURI().getPath();
        if (!path.equals("/") && !path.equals("/index.html")) {
          sendJson(exchange, 404, error("no such page: " + path));
        } else if (!exchange.getRequestMethod().equals("GET")) {
          sendJson(exchange, 405, error("GET only"));
        } else {
          send(exchange, 200, "text/html; charset=utf-8", PAGE.getBytes(StandardCharsets.UTF_8));
        }
      } catch (IOException e) {
        log("GET /: " + e);
      }
    });
    server.createContext("/api/validate", api("POST", this::validate));
    server.createContext("/api/plan", api("POST", this::plan));
    server.createContext("/api/save", api("POST", this::save));
    server.createContext("/api/document", api("GET", this::document));
    server.createContext("/api/status", api("GET", this::status));
    server.createContext("/api/tables", api("GET", this::tables));
  }

  /**
   * One endpoint: checks the method, runs the handler and turns what it throws into a JSON error
   * (a BadRequest with its status, anything else a 500 whose message names the cause, never a
   * stack trace), logging every failure.
   */
  static HttpHandler api(String method, Api handler) {
    return exchange -> {
      try (exchange) {
        String what = exchange.getRequestMethod() + " " + exchange.getRequestURI();
        Reply reply;
        try {
          if (!exchange.getRequestMethod().equals(method)) {
            throw new BadRequest(405, exchange.getRequestURI().getPath() + " takes " + method);
          }
          reply = handler.handle(exchange);
        } catch (BadRequest e) {
          log(what + ": " + e.status + " " + e.getMessage());
          reply = new Reply(e.status, error(e.getMessage()));
        } catch (IllegalArgumentException e) {
          log(what + ": 400 " + e.getMessage());
          reply = new Reply(400, error(e.getMessage()));
        } catch (Exception e) {
          log(what + ": 500 " + e);
          reply = new Reply(500, error("the portal could not do it: " + e.getMessage()));
        }
        try {
          sendJson(exchange, reply.status(), reply.json());
        } catch (IOException e) {
          log(what + ": could not answer: " + e);
        }
      }
    };
  }

  // ---- the endpoints ----

  /** POST /api/validate, the document as the body: valid or not, each error with its pointer. */
  Reply validate(HttpExchange exchange) throws Exception {
    ValidationResult result = admin.validate(body(exchange));
    return new Reply(200, "{\"valid\": " + result.isValid() + ", \"table\": "
        + quote(result.table()) + ", \"errors\": " + errors(result.errors()) + "}");
  }

  /** POST /api/plan, the document as the body: the region count and the first split keys. */
  Reply plan(HttpExchange exchange) throws Exception {
    Plan plan;
    try {
      plan = admin.plan(body(exchange));
    } catch (InvalidDocumentException e) {
      return invalid("POST /api/plan", e);
    }
    StringBuilder keys = new StringBuilder("[");
    List<byte[]> splitKeys = plan.splitKeys();
    for (int i = 0; i < Math.min(PREVIEW_KEYS, splitKeys.size()); i++) {
      keys.append(i > 0 ? ", " : "").append(quote(printable(splitKeys.get(i))));
    }
    keys.append("]");
    StringBuilder notes = new StringBuilder("[");
    for (String note : plan.notes()) {
      notes.append(notes.length() > 1 ? ", " : "").append(quote(note));
    }
    notes.append("]");
    return new Reply(200, "{\"table\": " + quote(plan.table()) + ", \"regions\": "
        + plan.regions() + ", \"split_keys\": " + keys + ", \"notes\": " + notes + "}");
  }

  /**
   * POST /api/save?expected_version=N, the document as the body: compare-and-set over version N
   * (-1: only if the table has no document yet).
   */
  Reply save(HttpExchange exchange) throws Exception {
    String expectedText = query(exchange).get("expected_version");
    if (expectedText == null) {
      throw new BadRequest(400,
          "expected_version is required: the version loaded, or -1 for a new document");
    }
    int expected;
    try {
      expected = Integer.parseInt(expectedText);
    } catch (NumberFormatException e) {
      throw new BadRequest(400, "expected_version " + expectedText + " is not a number");
    }
    if (expected < PresplitAdmin.NEW) {
      throw new BadRequest(400, "expected_version " + expected + ": a version, or -1");
    }
    String json = body(exchange);
    try {
      int version = admin.put(json, expected);
      String table = admin.validate(json).table();
      log("saved " + table + " version " + version + " (expected " + expected + ")");
      return new Reply(200, "{\"table\": " + quote(table) + ", \"version\": " + version + "}");
    } catch (InvalidDocumentException e) {
      return invalid("POST /api/save", e);
    } catch (VersionConflictException e) {
      log("conflict on " + e.table() + ": expected " + e.expectedVersion() + ", stored "
          + e.currentVersion());
      String message;
      if (e.currentVersion() == PresplitAdmin.NEW) {
        message = "the document of " + e.table() + " was removed since version "
            + e.expectedVersion() + " was loaded";
      } else if (e.expectedVersion() == PresplitAdmin.NEW) {
        message = e.table() + " has a document already: the stored version is "
            + e.currentVersion() + ", this page saved it as new";
      } else {
        message = "someone saved " + e.table() + " since: the stored version is "
            + e.currentVersion() + ", this page loaded version " + e.expectedVersion();
      }
      return new Reply(409, "{\"error\": " + quote(message) + ", \"table\": " + quote(e.table())
          + ", \"expected_version\": " + e.expectedVersion() + ", \"current_version\": "
          + e.currentVersion() + "}");
    }
  }

  /** GET /api/document?table=NS:T: the stored document and its version (404: none). */
  Reply document(HttpExchange exchange) throws Exception {
    String table = requiredTable(exchange);
    Optional<StoredDocument> stored = admin.get(table);
    if (stored.isEmpty()) {
      return new Reply(404, "{\"error\": " + quote("no document for " + table)
          + ", \"table\": " + quote(table) + ", \"version\": -1}");
    }
    StoredDocument doc = stored.get();
    return new Reply(200, "{\"table\": " + quote(doc.table()) + ", \"version\": " + doc.version()
        + ", \"json\": " + quote(doc.json()) + "}");
  }

  /** GET /api/status?table=NS:T: presplitd's status of the table (404: none yet). */
  Reply status(HttpExchange exchange) throws Exception {
    String table = requiredTable(exchange);
    Optional<TableStatus> found = admin.status(table);
    if (found.isEmpty()) {
      return new Reply(404, "{\"error\": " + quote("presplitd has no status for " + table
          + " (yet)") + ", \"table\": " + quote(table) + "}");
    }
    TableStatus s = found.get();
    StringBuilder differences = new StringBuilder("[");
    for (String d : s.differences()) {
      differences.append(differences.length() > 1 ? ", " : "").append(quote(d));
    }
    differences.append("]");
    return new Reply(200, "{\"table\": " + quote(s.table()) + ", \"phase\": " + quote(s.phase())
        + ", \"final\": " + s.isFinal() + ", \"config_version\": " + s.configVersion()
        + ", \"regions\": " + s.regions() + ", \"planned_regions\": " + s.plannedRegions()
        + ", \"physical_table\": " + quote(s.physicalTable()) + ", \"error\": "
        + quote(s.error()) + ", \"differences\": " + differences + ", \"updated_at\": "
        + quote(s.updatedAt()) + "}");
  }

  /** GET /api/tables: the tables that have a document. */
  Reply tables(HttpExchange exchange) throws Exception {
    StringBuilder names = new StringBuilder("[");
    for (String name : admin.list()) {
      names.append(names.length() > 1 ? ", " : "").append(quote(name));
    }
    return new Reply(200, "{\"tables\": " + names.append("]") + "}");
  }

  // ---- helpers ----

  static Reply invalid(String what, InvalidDocumentException e) {
    log(what + ": 400 the document is not valid: " + e.errors().get(0));
    return new Reply(400, "{\"error\": " + quote("the document is not valid: "
        + e.errors().get(0).message()) + ", \"errors\": " + errors(e.errors()) + "}");
  }

  static String errors(List<ValidationError> errors) {
    StringBuilder out = new StringBuilder("[");
    for (ValidationError e : errors) {
      out.append(out.length() > 1 ? ", " : "").append("{\"pointer\": ").append(quote(e.pointer()))
          .append(", \"message\": ").append(quote(e.message())).append("}");
    }
    return out.append("]").toString();
  }

  static String error(String message) {
    return "{\"error\": " + quote(message) + "}";
  }

  static String requiredTable(HttpExchange exchange) throws BadRequest {
    String table = query(exchange).get("table");
    if (table == null || table.isBlank()) {
      throw new BadRequest(400, "the table parameter is required: ?table=namespace:table");
    }
    return table.trim();
  }

  static Map<String, String> query(HttpExchange exchange) throws BadRequest {
    Map<String, String> params = new HashMap<>();
    String raw = exchange.getRequestURI().getRawQuery();
    if (raw == null || raw.isEmpty()) {
      return params;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String key = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      try {
        params.put(URLDecoder.decode(key, StandardCharsets.UTF_8),
            URLDecoder.decode(value, StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        throw new BadRequest(400, "malformed query: " + raw);
      }
    }
    return params;
  }

  /** The request body as UTF-8 text, refused over MAX_BODY. */
  static String body(HttpExchange exchange) throws IOException, BadRequest {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[16384];
    try (InputStream in = exchange.getRequestBody()) {
      for (int n; (n = in.read(buffer)) > 0;) {
        if (out.size() + n > MAX_BODY) {
          throw new BadRequest(413, "the request body is larger than " + (MAX_BODY >> 20)
              + " MiB");
        }
        out.write(buffer, 0, n);
      }
    }
    if (out.size() == 0) {
      throw new BadRequest(400, "the request body must hold the table document (JSON)");
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /** A split key as text: printable ASCII as is, any other byte as \xNN (as HBase prints keys). */
  static String printable(byte[] key) {
    StringBuilder out = new StringBuilder();
    for (byte b : key) {
      int c = b & 0xff;
      if (c >= 0x20 && c < 0x7f && c != '\\') {
        out.append((char) c);
      } else {
        out.append(String.format("\\x%02X", c));
      }
    }
    return out.toString();
  }

  static String quote(String s) {
    if (s == null) {
      return "null";
    }
    StringBuilder out = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          // < and > escaped too, so no text can close a script element.
          if (c < 0x20 || c == '<' || c == '>' || c == 0x2028 || c == 0x2029) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }

  static void sendJson(HttpExchange exchange, int status, String json) throws IOException {
    send(exchange, status, "application/json; charset=utf-8",
        (json + "\n").getBytes(StandardCharsets.UTF_8));
  }

  static void send(HttpExchange exchange, int status, String type, byte[] body)
      throws IOException {
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(body);
    }
  }

  // ---- the page ----

  static final String PAGE = """
      <!DOCTYPE html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <title>presplit portal</title>
      <style>
        body { font-family: sans-serif; margin: 1.5em; max-width: 70em; color: #222; }
        textarea { width: 100%; height: 18em; font-family: monospace; font-size: 13px; }
        .row { display: flex; gap: 2em; flex-wrap: wrap; }
        .box { border: 1px solid #ccc; border-radius: 4px; padding: 0.6em 1em; margin: 0.6em 0;
               min-width: 20em; flex: 1; }
        h2 { font-size: 1.05em; margin: 0.2em 0 0.5em; }
        code, .pointer { font-family: monospace; }
        .pointer { background: #fde8e8; padding: 0 0.3em; margin-right: 0.6em; }
        .ok { color: #17692e; } .bad { color: #b3261e; } .muted { color: #777; }
        ul { margin: 0.3em 0; padding-left: 1.3em; }
      </style>
      </head>
      <body>
      <h1>Table documents</h1>
      <p>
        <label>Load the document of <input id="load-table" placeholder="namespace:table"></label>
        <button id="load">Load</button>
        <span id="loaded" class="muted">a new document</span>
      </p>
      <textarea id="document" spellcheck="false"
                placeholder='{"version": 1, "table": "ns:t", ...}'></textarea>
      <div class="row">
        <div class="box"><h2>Validation</h2>
          <div id="validity" class="muted">type a document</div>
          <ul id="errors"></ul></div>
        <div class="box"><h2>Regions</h2>
          <div><span id="plan-regions">-</span> regions</div>
          <div class="muted">first split keys:</div>
          <ul id="plan-keys"></ul>
          <ul id="plan-notes" class="muted"></ul></div>
      </div>
      <p><button id="save" disabled>Save</button> <span id="save-result"></span></p>
      <div class="box"><h2>Status</h2>
        <div>phase: <b id="status-phase">-</b>, regions: <b id="status-regions">-</b>,
          version: <span id="status-version">-</span></div>
        <div id="status-error" class="bad"></div></div>
      <script>
      "use strict";
      const $ = (id) => document.getElementById(id);
      // The version this page loaded per table; a table it did not load is saved as new (-1).
      let loaded = { table: null, version: -1 };
      let current = { valid: false, table: null };
      let sequence = 0;
      let timer = null;
      let polling = null;

      async function call(method, url, body) {
        const response = await fetch(url, { method, body,
          headers: body === undefined ? {} : { "Content-Type": "application/json" } });
        let data = {};
        try { data = await response.json(); } catch (e) { data = { error: "no JSON answer" }; }
        return { status: response.status, data };
      }

      function fill(list, items, render) {
        list.replaceChildren(...items.map((item) => {
          const li = document.createElement("li");
          render(li, item);
          return li;
        }));
      }

      function expectedVersion() {
        return current.table !== null && current.table === loaded.table ? loaded.version : -1;
      }

      function showLoaded() {
        $("loaded").textContent = loaded.table === null ? "a new document"
          : loaded.version < 0 ? loaded.table + ": a new document"
          : loaded.table + " at version " + loaded.version;
      }

      async function check() {
        const mine = ++sequence;
        const text = $("document").value;
        if (text.trim() === "") {
          $("validity").textContent = "type a document";
          $("validity").className = "muted";
          $("errors").replaceChildren();
          $("save").disabled = true;
          return;
        }
        const v = await call("POST", "/api/validate", text);
        if (mine !== sequence) return;  // the user typed on: a newer check is on its way
        if (v.status !== 200) {
          $("validity").textContent = v.data.error;
          $("validity").className = "bad";
          return;
        }
        current = { valid: v.data.valid, table: v.data.table };
        $("validity").textContent = v.data.valid ? "valid: " + v.data.table : "not valid";
        $("validity").className = v.data.valid ? "ok" : "bad";
        fill($("errors"), v.data.errors, (li, e) => {
          li.className = "error";
          const pointer = document.createElement("span");
          pointer.className = "pointer";
          pointer.textContent = e.pointer === "" ? "(document)" : e.pointer;
          const message = document.createElement("span");
          message.className = "message";
          message.textContent = e.message;
          li.append(pointer, " ", message);
        });
        $("save").disabled = !v.data.valid;
        if (!v.data.valid) {
          $("plan-regions").textContent = "-";
          $("plan-keys").replaceChildren();
          $("plan-notes").replaceChildren();
          return;
        }
        const p = await call("POST", "/api/plan", text);
        if (mine !== sequence) return;
        if (p.status !== 200) {
          $("plan-regions").textContent = "-";
          fill($("plan-notes"), [p.data.error], (li, n) => { li.textContent = n; });
          return;
        }
        $("plan-regions").textContent = p.data.regions;
        fill($("plan-keys"), p.data.split_keys, (li, k) => {
          const code = document.createElement("code");
          code.textContent = k;
          li.append(code);
        });
        fill($("plan-notes"), p.data.notes, (li, n) => { li.textContent = n; });
      }

      function scheduleCheck() {
        clearTimeout(timer);
        timer = setTimeout(check, 300);
      }

      async function load() {
        const table = $("load-table").value.trim();
        if (table === "") return;
        const d = await call("GET", "/api/document?table=" + encodeURIComponent(table));
        if (d.status === 200) {
          loaded = { table: d.data.table, version: d.data.version };
          $("document").value = d.data.json;
          $("save-result").textContent = "";
        } else if (d.status === 404) {
          loaded = { table: d.data.table, version: -1 };
          $("save-result").textContent = d.data.error;
        } else {
          $("save-result").textContent = d.data.error;
          return;
        }
        showLoaded();
        check();
        showStatus(loaded.table, null);
      }

      async function save() {
        $("save").disabled = true;
        const expected = expectedVersion();
        const s = await call("POST", "/api/save?expected_version=" + expected,
                             $("document").value);
        $("save").disabled = false;
        const result = $("save-result");
        if (s.status === 200) {
          loaded = { table: s.data.table, version: s.data.version };
          showLoaded();
          result.className = "ok";
          result.textContent = "saved " + s.data.table + " as version " + s.data.version;
          showStatus(s.data.table, s.data.version);
        } else if (s.status === 409) {
          result.className = "bad conflict";
          result.textContent = "conflict: " + s.data.error +
            ". Load the table again to see the stored version.";
        } else {
          result.className = "bad";
          result.textContent = s.data.error;
        }
      }

      // Polls the table's status; with a version, until presplitd reports a final phase for it.
      function showStatus(table, version) {
        clearTimeout(polling);
        const poll = async () => {
          const r = await call("GET", "/api/status?table=" + encodeURIComponent(table));
          let done = version === null;
          if (r.status === 200) {
            const applied = version === null || r.data.config_version === version;
            $("status-phase").textContent = applied ? r.data.phase : "waiting for presplitd";
            $("status-regions").textContent = applied ? r.data.regions : "-";
            $("status-version").textContent = r.data.config_version;
            $("status-error").textContent = applied && r.data.error ? r.data.error : "";
            done = done || (applied && r.data.final);
          } else if (r.status === 404) {
            $("status-phase").textContent =
              version === null ? "no status" : "waiting for presplitd";
          } else {
            $("status-error").textContent = r.data.error;
          }
          if (!done) polling = setTimeout(poll, 1000);
        };
        poll();
      }

      $("document").addEventListener("input", scheduleCheck);
      $("load").addEventListener("click", load);
      $("save").addEventListener("click", save);
      </script>
      </body>
      </html>
      """;
}
