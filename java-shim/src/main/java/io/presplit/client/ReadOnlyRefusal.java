package io.presplit.client;

import java.io.IOException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.TableNotFoundException;
import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.ipc.RemoteException;

/**
 * Recognises HBase's refusal of a write by a read-only table: the {@link DoNotRetryIOException}
 * "region is read only" of {@code HRegion.checkReadOnly} (HBase 2.6), which presplitd provokes on
 * purpose while it drains a generation before a switch (the table's {@code READONLY} attribute).
 *
 * <p>Why a write refused this way may be sent again, even one that is not idempotent: the
 * RegionServer checks {@code READONLY} before it applies anything (first thing in
 * {@code batchMutate}, {@code checkAndMutate}, {@code increment} and {@code append}), and a
 * region's read-only state is fixed for as long as it is open (changing the attribute reopens
 * the regions), so a refused operation left no trace. The same holds for a fenced generation
 * that was dropped since (a rollback drops the new one once it is read-only and drained): the
 * client finds no table ({@link TableNotFoundException}) before it sends anything; such a failure
 * is sent again only where the status names another generation. No other failure is taken as
 * one: a timeout or another error may come after the write was applied.
 *
 * <p>One case this cannot see: HBase's client retries a call by itself after a timeout of its
 * own, and when that retry meets the region reopened read-only, the refusal is all it reports,
 * though its first attempt may have been applied. A put sent again rewrites the same cells; an
 * increment or an append would be applied twice. It takes an RPC timeout across a switch's pause.
 */
final class ReadOnlyRefusal {

  /** What {@code HRegion.checkReadOnly} says; the client carries it in the message. */
  static final String MESSAGE = "region is read only";

  private ReadOnlyRefusal() {}

  /**
   * True when {@code t}, or a cause of it, is the read-only refusal: a DoNotRetryIOException (or
   * an undecoded RemoteException of that class) whose message says the region is read only.
   * For a batch's {@link RetriesExhaustedWithDetailsException}, only when every failed action
   * was refused that way.
   */
  static boolean is(Throwable t) {
    for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
      if (t instanceof RetriesExhaustedWithDetailsException) {
        RetriesExhaustedWithDetailsException r = (RetriesExhaustedWithDetailsException) t;
        if (r.getNumExceptions() == 0) {
          return false;
        }
        for (int i = 0; i < r.getNumExceptions(); i++) {
          if (!is(r.getCause(i))) {
            return false;
          }
        }
        return true;
      }
      if (isItself(t)) {
        return true;
      }
    }
    return false;
  }

  private static boolean isItself(Throwable t) {
    // A fenced generation dropped meanwhile (a rollback drops the new one once it is read-only
    // and drained): the client finds no table before it sends anything. Only taken as a refusal
    // when the status names another generation (nextAfterRefusal), like the read-only one.
    if (t instanceof TableNotFoundException || (t instanceof RemoteException
        && TableNotFoundException.class.getName().equals(((RemoteException) t).getClassName()))) {
      return true;
    }
    String message = t.getMessage();
    if (message == null || !message.contains(MESSAGE)) {
      return false;
    }
    return t instanceof DoNotRetryIOException || (t instanceof RemoteException
        && DoNotRetryIOException.class.getName().equals(((RemoteException) t).getClassName()));
  }

  /**
   * The positions in {@code sent} of the actions of a failed batch that were refused as
   * read-only, or null when the failure is anything else or anything more (then nothing may be
   * sent again). A batch that failed as a whole with the refusal: every position.
   */
  static List<Integer> refusedActions(IOException failure, List<? extends Row> sent) {
    if (!(failure instanceof RetriesExhaustedWithDetailsException)) {
      if (!is(failure)) {
        return null;
      }
      List<Integer> all = new ArrayList<>(sent.size());
      for (int i = 0; i < sent.size(); i++) {
        all.add(i);
      }
      return all;
    }
    RetriesExhaustedWithDetailsException r = (RetriesExhaustedWithDetailsException) failure;
    if (!is(r)) {
      return null;
    }
    // The client reports the very Row objects it was given: find them by identity.
    Map<Row, Integer> position = new IdentityHashMap<>();
    for (int i = 0; i < sent.size(); i++) {
      position.put(sent.get(i), i);
    }
    List<Integer> refused = new ArrayList<>();
    for (int i = 0; i < r.getNumExceptions(); i++) {
      Integer at = position.get(r.getRow(i));
      if (at == null) {
        return null; // an action we cannot place: do not guess
      }
      if (!refused.contains(at)) {
        refused.add(at);
      }
    }
    refused.sort(null);
    return refused;
  }
}
