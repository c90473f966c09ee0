package io.presplit.mapreduce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.JobPriority;
import org.apache.hadoop.mapreduce.JobStatus;
import org.junit.jupiter.api.Test;

/** Which earlier jobs a resubmit kills: unfinished ones of the same migration, no others. */
class BulkJobsTest {

  static final String NAME = "presplit re-salt ns:t -> ns:t__g2";

  static JobStatus status(int id, String name, JobStatus.State state) {
    return new JobStatus(new JobID("1700000000000", id), 1f, 0.5f, 0f, 0f, state,
        JobPriority.NORMAL, "hbase", name, "job.xml", "http://rm/proxy/" + id);
  }

  @Test
  void onlyUnfinishedJobsOfTheSameNameAreOrphans() {
    JobStatus[] statuses = {
        status(1, NAME, JobStatus.State.RUNNING),
        status(2, NAME, JobStatus.State.SUCCEEDED),
        status(3, NAME, JobStatus.State.FAILED),
        status(4, NAME, JobStatus.State.KILLED),
        status(5, NAME, JobStatus.State.PREP),
        status(6, "presplit re-salt ns:t -> ns:t__g3", JobStatus.State.RUNNING),
        status(7, "presplit re-salt ns:other -> ns:other__g2", JobStatus.State.RUNNING),
        null,
    };
    List<JobID> orphans = BulkJobs.unfinishedNamed(statuses, NAME);
    assertEquals(List.of(new JobID("1700000000000", 1), new JobID("1700000000000", 5)), orphans);
  }

  @Test
  void noStatusesNoOrphans() {
    // A cluster that lists no jobs.
    assertTrue(BulkJobs.unfinishedNamed(null, NAME).isEmpty());
    assertTrue(BulkJobs.unfinishedNamed(new JobStatus[0], NAME).isEmpty());
  }

  @Test
  void theLocalRunnerHasNoOrphansToKill() throws Exception {
    Configuration conf = new Configuration(false);
    conf.set("mapreduce.framework.name", "local");
    assertTrue(BulkJobs.killUnfinishedNamed(NAME, conf).isEmpty());
  }
}
