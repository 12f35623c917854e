"""Writes the LibSVM sample files of packages/io/src/__fixtures__/libsvm/ (hand-written cases plus
one generated file, fixed seed). They are inputs only: the expected rows come from dmlc-core's
parser (build.sh), never from this script.

    /usr/bin/python3 tools/golden/libsvm/fixtures.py
"""
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "..", "packages", "io", "src", "__fixtures__", "libsvm")

FILES = {
    # The data.t and label.t of MXNet's LibSVMIter documentation (src/io/iter_libsvm.cc).
    "mxnet-doc-data.libsvm": b"1.0 0:0.5 2:1.2\n-2.0\n-3.0 0:0.6 1:2.4 2:1.2\n4 2:-1.2\n",
    "mxnet-doc-label.libsvm": b"1.0\n-2.0 0:0.125\n-3.0 2:1.2\n4 1:1.0 2:-1.2\n",
    # 1-based indices (columns 1..8), as most public LibSVM data sets; CRLF line ends.
    "one-based.libsvm": (
        b"+1 1:0.25 3:1 7:-0.5\r\n"
        b"-1 2:1 4:0.125\r\n"
        b"+1 1:1 2:1 3:1 4:1 5:1 6:1 7:1 8:1\r\n"
        b"-1 8:3.5\r\n"
        b"+1 5:2e-3\r\n"
    ),
    # label:weight and qid:n on every row (MXNet ignores both); a row without features.
    "weights-qid.libsvm": (
        b"3:0.5 qid:1 0:1.5 4:2\n"
        b"2:1 qid:1 1:-1 2:0.25\n"
        b"1:2.0 qid:2 0:7\n"
        b"0:0.75 qid:2\n"
        b"1:1e-1 qid:10 3:3 4:4\n"
    ),
    # Comments, blank and whitespace-only lines, label-only rows, tabs, \r and \r\n line ends,
    # number forms (.5, 5., -0, +2, 1E2, float32 rounding and overflow), no final line break.
    # dmlc-core skips a whole-line comment only on the first line of a parsed chunk; elsewhere it
    # reads any number characters in it (0-9 + - . e E) as a row, so the comment lines here hold
    # none (the reader's own tests cover comments that do).
    "comments-empty.libsvm": (
        b"# a top annotation\n"
        b"1 0:1 2:2 # a trailing comment 3:3\n"
        b"\n"
        b"   \n"
        b"\t\n"
        b"-1\n"
        b"0 1:0.5\t3:1.5\n"
        b"#\n"
        b"  # an annotation, again\n"
        b"7 # a label-only row with a comment\n"
        b"2.5   0:.5   1:5.   2:-0   3:+2   4:1E2\n"
        b"3 0:3\r4 1:4\r\n"
        b"\r\n"
        b"0.1 0:0.1 1:16777217 2:3.4028236e38 3:1e-50 4:-1.17549435e-38\n"
        b"5 4:-1e-3"
    ),
    # A UTF-8 byte order mark before the first line.
    "bom.libsvm": b"\xef\xbb\xbf1 0:1\n2 1:2\n",
    # Two files of one directory (read as a ';' list in name order); b has no final line break,
    # and the empty file is skipped.
    "dir/a.libsvm": b"1 0:1 1:1\n2 1:2\n3 2:3 3:3\n",
    "dir/b.libsvm": b"4 3:4\n5\n6 0:6 3:6",
    "dir/c-empty.libsvm": b"",
}


def generated():
    """60 rows of 0..12 features over 20 columns, numbers in assorted forms (seed 15)."""
    rng = random.Random(15)
    lines = []
    for i in range(60):
        label = rng.choice(["1", "-1", "0", "+1", str(rng.randint(0, 9))])
        cols = sorted(rng.sample(range(20), rng.randint(0, 12)))
        feats = []
        for c in cols:
            v = rng.uniform(-1000, 1000) * 10 ** rng.randint(-8, 3)
            form = rng.choice(["{:.6g}", "{:.9e}", "{:.3f}", "{:.17g}", "{:g}"])
            feats.append("%d:%s" % (c, form.format(v)))
        sep = rng.choice([" ", "  ", "\t"])
        line = label + (sep + sep.join(feats) if feats else "")
        if i % 17 == 5:
            lines.append("")
        if i % 23 == 7:
            lines.append("# an annotation")
        lines.append(line)
    return ("\n".join(lines) + "\n").encode()


def main():
    FILES["generated.libsvm"] = generated()
    for name, data in FILES.items():
        path = os.path.join(OUT, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    print("wrote", len(FILES), "files to", os.path.normpath(OUT))


if __name__ == "__main__":
    main()
