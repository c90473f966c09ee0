/*
 * BenchSummary: one line of bench/run_all.sh's summary table. A benchmark calls row(...) for
 * each figure it has a comparison (or a target) for; when the environment variable
 * PRESPLIT_BENCH_SUMMARY names a file, the row is appended to it as one JSON object a line,
 * otherwise nothing happens, so every benchmark still runs on its own. Compiled together with
 * each benchmark's source by its run_*_bench.sh.
 */

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

public final class BenchSummary {
  private BenchSummary() {
  }

  /**
   * @param bench the benchmark (native, policy, sampler, sdk, reaction)
   * @param id a stable key for the figure (run_all.sh pairs figures of two benchmarks by it)
   * @param figure what is measured, with its unit
   * @param presplit presplit's value
   * @param baseline the baseline's value (NaN: no baseline, the target is absolute)
   * @param baselineName which baseline
   * @param ratio the figure's ratio (NaN: none), as ratioOf says
   * @param ratioOf how the ratio is formed, e.g. "presplit/baseline"
   * @param target the target on the ratio (or the value), e.g. ">= 0.8"; null: none
   * @param met whether the target is met; null when there is none, or when the measurement
   *     cannot tell (the difference is within its noise)
   * @param note anything a reader of the table needs (spread, rounds, a caveat)
   */
  public static void row(String bench, String id, String figure, double presplit,
      double baseline, String baselineName, double ratio, String ratioOf, String target,
      Boolean met, String note) {
    String file = System.getenv("PRESPLIT_BENCH_SUMMARY");
    if (file == null || file.isEmpty()) {
      return;
    }
    StringBuilder b = new StringBuilder("{");
    field(b, "bench", bench);
    field(b, "id", id);
    field(b, "figure", figure);
    number(b, "presplit", presplit);
    number(b, "baseline", baseline);
    field(b, "baseline_name", baselineName);
    number(b, "ratio", ratio);
    field(b, "ratio_of", ratioOf);
    field(b, "target", target);
    b.append("\"met\": ").append(met == null ? "null" : met.toString()).append(", ");
    field(b, "note", note);
    b.setLength(b.length() - 2);
    b.append("}\n");
    try {
      Files.writeString(Path.of(file), b, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new IllegalStateException("cannot append to " + file, e);
    }
  }

  private static void field(StringBuilder b, String name, String value) {
    b.append('"').append(name).append("\": ");
    if (value == null) {
      b.append("null");
    } else {
      b.append('"');
      for (char c : value.toCharArray()) {
        switch (c) {
          case '"': b.append("\\\""); break;
          case '\\': b.append("\\\\"); break;
          case '\n': b.append("\\n"); break;
          default:
            if (c < 0x20) {
              b.append(String.format("\\u%04x", (int) c));
            } else {
              b.append(c);
            }
        }
      }
      b.append('"');
    }
    b.append(", ");
  }

  private static void number(StringBuilder b, String name, double value) {
    b.append('"').append(name).append("\": ")
        .append(Double.isFinite(value) ? String.format(Locale.ROOT, "%.6g", value) : "null")
        .append(", ");
  }
}
