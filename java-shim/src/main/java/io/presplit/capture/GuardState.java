package io.presplit.capture;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One region's {@link MigrationGuard}, as it answers a confirmation: the plan it is active for
 * ({@link MigrationGuard#CAPTURED} when a capture turned it on; null: dormant), whether it takes the copy's bulk loads, how many writes it let through are
 * still under way, the region's read point (every edit at or below it is visible to a read that
 * starts now; -1: unknown), and a note ("" for none).
 *
 * <p>It travels as the message of the exception that refuses the confirmation, one line whose
 * last field is free text: {@link #toMessage} writes it, {@link #parse} finds it in whatever the
 * client's exception made of the message.
 */
public record GuardState(String region, String plan, boolean copyLoads, int inFlight,
    long readPoint, String note) {

  static final String PREFIX = "presplit MigrationGuard state:";

  private static final Pattern LINE = Pattern.compile(Pattern.quote(PREFIX)
      + " region=(\\S*) plan=(\\S+) copy_loads=(true|false) in_flight=(-?\\d+)"
      + " read_point=(-?\\d+) note=(.*)");

  public String toMessage() {
    return PREFIX + " region=" + region + " plan=" + (plan == null ? "-" : plan) + " copy_loads="
        + copyLoads + " in_flight=" + inFlight + " read_point=" + readPoint + " note="
        + note.replace('\n', ' ');
  }

  /** The state in {@code message}; null when it holds none. */
  public static GuardState parse(String message) {
    if (message == null) {
      return null;
    }
    for (String line : message.split("\n")) {
      Matcher m = LINE.matcher(line);
      if (m.find()) {
        return new GuardState(m.group(1), m.group(2).equals("-") ? null : m.group(2),
            Boolean.parseBoolean(m.group(3)), Integer.parseInt(m.group(4)),
            Long.parseLong(m.group(5)), m.group(6).trim());
      }
    }
    return null;
  }

  /** Whether the guard refuses, with nothing it let through before still under way. */
  public boolean settled() {
    return plan != null && inFlight == 0;
  }
}
