package io.presplit.migrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every call presplitd makes into this jar (daemon/migrate/bridge_calls.def, the one place the
 * daemon's side declares them) exists here: a public static method of that class, name and
 * shape (argument and result types) as the row says. A method renamed or reshaped on either side
 * fails this test instead of a migration.
 */
class BridgeCallsTest {
  private static final Pattern ROW = Pattern.compile(
      "^PRESPLIT_BRIDGE_CALL\\(\\s*(\\w+)\\s*,\\s*\"([\\w.]+)\"\\s*,\\s*\"(\\w+)\"\\s*,\\s*\"([A-Z]*>[A-Z])\"\\s*\\)",
      Pattern.MULTILINE);

  private static Path projectDir() {
    String basedir = System.getProperty("basedir", System.getProperty("user.dir"));
    return Paths.get(basedir).toAbsolutePath().getParent();
  }

  private static Class<?> typeOf(char letter) {
    switch (letter) {
      case 'S':
        return String.class;
      case 'A':
        return String[].class;
      case 'B':
        return byte[].class;
      case 'I':
        return int.class;
      case 'J':
        return long.class;
      case 'V':
        return void.class;
      default:
        throw new IllegalArgumentException("no type '" + letter + "' in a bridge call's shape");
    }
  }

  @Test
  void everyCallTheDaemonMakesExistsInTheJarWithItsShape() throws Exception {
    String def = Files.readString(projectDir().resolve("daemon/migrate/bridge_calls.def"),
        StandardCharsets.UTF_8);
    Matcher row = ROW.matcher(def);
    List<String> problems = new ArrayList<>();
    int rows = 0;
    while (row.find()) {
      rows++;
      String id = row.group(1);
      String className = row.group(2);
      String name = row.group(3);
      String shape = row.group(4);
      int arrow = shape.indexOf('>');
      Class<?>[] parameters = new Class<?>[arrow];
      for (int i = 0; i < arrow; i++) {
        parameters[i] = typeOf(shape.charAt(i));
      }
      Method method;
      try {
        method = Class.forName(className).getMethod(name, parameters);
      } catch (NoSuchMethodException e) {
        problems.add(id + ": " + className + "." + name + " has no public method of shape "
            + shape);
        continue;
      }
      if (!Modifier.isStatic(method.getModifiers())) {
        problems.add(id + ": " + className + "." + name + " is not static");
      }
      if (method.getReturnType() != typeOf(shape.charAt(arrow + 1))) {
        problems.add(id + ": " + className + "." + name + " returns "
            + method.getReturnType().getSimpleName() + ", the row says " + shape);
      }
    }
    assertTrue(rows >= 30, "rows found in bridge_calls.def: " + rows);
    if (!problems.isEmpty()) {
      fail(String.join("\n", problems));
    }
  }

  @Test
  void theShapeLanguageKnowsItsLetters() {
    assertEquals(byte[].class, typeOf('B'));
    assertEquals(void.class, typeOf('V'));
    try {
      typeOf('X');
      fail("an unknown letter must be refused");
    } catch (IllegalArgumentException expected) {
      assertTrue(expected.getMessage().contains("'X'"));
    }
  }
}
