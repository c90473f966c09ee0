package io.presplit.hbase.policy;

import io.presplit.hbase.nativelib.LayoutSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * presplit's split-policy parameters of one table. Read from the table descriptor's values
 * (where {@code SPLIT_POLICY} lives too); a parameter found only in a column family's
 * CONFIGURATION is used with a warning (users often put it there, where HBase's own prefix
 * policies silently ignore it); the site configuration gives defaults. Values are checked here
 * for form (numbers, booleans); libpresplit checks their meaning.
 */
public final class PolicyConfig {
  public static final String PREFIX = "presplit.";
  public static final String SIZE_POLICY = "presplit.split.size-policy";
  public static final String SALT_BUCKETS = "presplit.layout.salt.buckets";
  public static final String SALT_ENCODING = "presplit.layout.salt.encoding";
  public static final String SALT_WIDTH = "presplit.layout.salt.width";
  public static final String SALT_HASH = "presplit.layout.salt.hash";
  public static final String SALT_FROM = "presplit.layout.salt.from";
  public static final String GROUP_LENGTH = "presplit.layout.group.length";
  public static final String GROUP_DELIMITER = "presplit.layout.group.delimiter";
  public static final String LOAD_ENABLED = "presplit.load.enabled";
  public static final String LOAD_MIN_REQUESTS = "presplit.load.min-requests";
  public static final String LOAD_MAX_IMBALANCE = "presplit.load.max-imbalance";
  public static final String LOAD_MAX_CONTAINED = "presplit.load.max-contained-fraction";
  /** Marks a table whose salt buckets BucketGuardObserver protects. */
  public static final String MANAGED = "presplit.managed";

  public static final String DEFAULT_SIZE_POLICY = "stepping";

  private final String sizePolicy;
  private final LayoutSpec layout;
  private final boolean loadEnabled;
  private final long loadMinRequests;
  private final double loadMaxImbalance;
  private final double loadMaxContained;
  private final List<String> warnings;
  private final List<String> errors;

  private PolicyConfig(Reader r) {
    this.sizePolicy = r.string(SIZE_POLICY, DEFAULT_SIZE_POLICY);
    int buckets = r.integer(SALT_BUCKETS, 0);
    String delimiterText = r.string(GROUP_DELIMITER, null);
    byte[] delimiter = null;
    if (delimiterText != null) {
      if (delimiterText.isEmpty()) {
        r.errors.add(GROUP_DELIMITER + ": must not be empty");
      } else {
        delimiter = Bytes.toBytesBinary(delimiterText);
      }
    }
    this.layout = new LayoutSpec(buckets, r.string(SALT_ENCODING, "byte"),
        r.integer(SALT_WIDTH, 0), r.string(SALT_HASH, "murmur3"), r.string(SALT_FROM, "group"),
        r.integer(GROUP_LENGTH, 0), delimiter);
    this.loadEnabled = r.bool(LOAD_ENABLED, true);
    this.loadMinRequests = r.longValue(LOAD_MIN_REQUESTS, 100);
    this.loadMaxImbalance = r.fraction(LOAD_MAX_IMBALANCE, 0.25);
    this.loadMaxContained = r.fraction(LOAD_MAX_CONTAINED, 0.5);
    this.warnings = List.copyOf(r.warnings);
    this.errors = List.copyOf(r.errors);
  }

  /** Reads the parameters of a table (conf may be null). Never throws. */
  public static PolicyConfig read(TableDescriptor table, Configuration conf) {
    return new PolicyConfig(new Reader(table, conf));
  }

  public String sizePolicy() {
    return sizePolicy;
  }

  public LayoutSpec layout() {
    return layout;
  }

  public boolean loadEnabled() {
    return loadEnabled;
  }

  public long loadMinRequests() {
    return loadMinRequests;
  }

  public double loadMaxImbalance() {
    return loadMaxImbalance;
  }

  public double loadMaxContainedFraction() {
    return loadMaxContained;
  }

  /** Parameters taken from a family's configuration, one sentence each. */
  public List<String> warnings() {
    return warnings;
  }

  /** Malformed parameters, one sentence each; non-empty means: fall back to HBase. */
  public List<String> errors() {
    return errors;
  }

  /** Looks a key up: table value, else a family's configuration (warned), else the site. */
  private static final class Reader {
    final TableDescriptor table;
    final Configuration conf;
    final List<String> warnings = new ArrayList<>();
    final List<String> errors = new ArrayList<>();

    Reader(TableDescriptor table, Configuration conf) {
      this.table = table;
      this.conf = conf;
    }

    String string(String key, String fallback) {
      String value = table == null ? null : table.getValue(key);
      if (value != null) {
        return value.trim();
      }
      if (table != null) {
        for (ColumnFamilyDescriptor family : table.getColumnFamilies()) {
          String fromFamily = family.getConfigurationValue(key);
          if (fromFamily != null) {
            warnings.add(key + " is set in the CONFIGURATION of family '"
                + family.getNameAsString() + "', not on the table; using it, but set it as a "
                + "table attribute (where SPLIT_POLICY is)");
            return fromFamily.trim();
          }
        }
      }
      String site = conf == null ? null : conf.get(key);
      return site != null ? site.trim() : fallback;
    }

    int integer(String key, int fallback) {
      String text = string(key, null);
      if (text == null) {
        return fallback;
      }
      try {
        return Integer.parseInt(text);
      } catch (NumberFormatException e) {
        errors.add(key + ": '" + text + "' is not an integer");
        return fallback;
      }
    }

    long longValue(String key, long fallback) {
      String text = string(key, null);
      if (text == null) {
        return fallback;
      }
      try {
        return Long.parseLong(text);
      } catch (NumberFormatException e) {
        errors.add(key + ": '" + text + "' is not an integer");
        return fallback;
      }
    }

    double fraction(String key, double fallback) {
      String text = string(key, null);
      if (text == null) {
        return fallback;
      }
      try {
        double value = Double.parseDouble(text);
        if (!(value >= 0 && value <= 1)) {
          errors.add(key + ": " + text + " is not between 0 and 1");
          return fallback;
        }
        return value;
      } catch (NumberFormatException e) {
        errors.add(key + ": '" + text + "' is not a number");
        return fallback;
      }
    }

    boolean bool(String key, boolean fallback) {
      String text = string(key, null);
      if (text == null) {
        return fallback;
      }
      switch (text.toLowerCase(Locale.ROOT)) {
        case "true":
          return true;
        case "false":
          return false;
        default:
          errors.add(key + ": '" + text + "' is not true or false");
          return fallback;
      }
    }
  }
}
