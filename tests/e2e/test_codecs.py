"""End to end: documents asking for ZSTD or LZ4 get their tables on the local cluster.

scripts/local-cluster loads HBase's zstd-jni codec and Hadoop's Lz4Codec (with lz4-java) and
names them in hbase.io.compress.{zstd,lz4}.codec. Each table is created by the real presplitd
from a document, described through the plain HBase client, then written, flushed (the codec
really compresses a store file) and read back.
"""
import json
import os
import tempfile
import unittest
import uuid

import harness as h

RUN = uuid.uuid4().hex[:8]


def write_doc(doc):
    fd, path = tempfile.mkstemp(suffix=".json", dir=os.path.join(h.BUILD_DIR, "e2e"))
    with os.fdopen(fd, "w") as f:
        json.dump(doc, f)
    return path


class CodecsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        os.makedirs(os.path.join(h.BUILD_DIR, "e2e"), exist_ok=True)
        cls.root = f"/presplit-codecs-{RUN}"
        cls.daemon = h.Daemon(cls.root, http_port=19481, name="presplitd-codecs").start()

    @classmethod
    def tearDownClass(cls):
        if cls.daemon.alive():
            cls.daemon.stop()

    def assert_codec_table(self, codec):
        table = f"e2e_{codec.lower()}_{RUN}"
        doc = {
            "version": 1,
            "table": table,
            "split": {"algorithm": "hex-string", "regions": 3},
            "families": [{"name": "f", "compression": codec}],
        }
        h.ctl(self.root, "put", write_doc(doc))
        status = h.wait_status(self.root, table, ["ready", "error", "invalid", "drift"])
        self.assertEqual(status["phase"], "ready", status)
        self.assertEqual(status["regions"], 3)

        described = json.loads(h.probe("describe", table).stdout)
        self.assertTrue(described["exists"])
        [family] = described["families"]
        self.assertEqual(family["compression"], codec)
        self.assertEqual(len(described["regions"]), 3)

        # The codec works on the RegionServer, not only in the descriptor: rows in two regions,
        # flushed into store files compressed with it, then read back from those files.
        h.probe("put", table, "10000000", "f:q", "first value " * 20)
        h.probe("put", table, "f0000000", "f:q", "second value " * 20)
        h.probe("flush", table)
        self.assertEqual(h.probe("count", table).stdout.strip(), "2")

    def test_zstd_document_gets_its_table(self):
        self.assert_codec_table("ZSTD")

    def test_lz4_document_gets_its_table(self):
        self.assert_codec_table("LZ4")


if __name__ == "__main__":
    h.main()
