// Reference RecordIO files for @mx/io's recordio tests, written and split by dmlc-core itself.
// This driver is ours (no dmlc-core code is copied): it links against a dmlc-core build and uses
// its public RecordIOWriter / RecordIOReader / RecordIOChunkReader / InputSplit, so the committed
// fixtures record what the C++ reference does, not what our TypeScript thinks it does.
// Build and run with build.sh (see README.md). Output: <out>/{*.rec, *.idx, *.payloads, manifest.json}.
#include <dmlc/io.h>
#include <dmlc/recordio.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

const char kMagicBytes[4] = {'\x0a', '\x23', '\xd7', '\xce'};  // 0xced7230a little-endian

std::string Bytes(std::mt19937 *rng, size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>((*rng)() & 0xffu);
  return s;
}

// Random bytes with the magic number written at the given byte offsets.
std::string WithMagic(std::mt19937 *rng, size_t n, const std::vector<size_t> &at) {
  std::string s = Bytes(rng, n);
  for (size_t a : at) std::memcpy(&s[a], kMagicBytes, 4);
  return s;
}

// Records of every shape the framing distinguishes: empty, each padding length, the magic
// number at aligned offsets (split into cflag 1/2/3 parts, the magic dropped), at unaligned
// offsets (kept in one part), back to back, at the start and end, a payload made only of
// magics, random sizes with random aligned magics, and one larger record.
std::vector<std::string> MixedRecords() {
  std::mt19937 rng(20240613u);
  std::vector<std::string> r;
  r.push_back("");
  r.push_back("abc");
  for (size_t n : {1u, 2u, 4u, 5u, 6u, 7u, 8u, 9u, 31u}) r.push_back(Bytes(&rng, n));
  r.push_back(std::string(kMagicBytes, 4));                           // cflag 1 + 3, both empty
  r.push_back(std::string(kMagicBytes, 4) + "xy");                    // the catalog's example
  r.push_back(WithMagic(&rng, 16, {0}));
  r.push_back(WithMagic(&rng, 16, {12}));
  r.push_back(WithMagic(&rng, 18, {4, 8}));                           // adjacent: empty middle
  r.push_back(WithMagic(&rng, 23, {1}));                              // unaligned: not split
  r.push_back(WithMagic(&rng, 23, {2, 7, 13}));                       // unaligned: not split
  r.push_back(WithMagic(&rng, 11, {4}));                              // last aligned word
  r.push_back(WithMagic(&rng, 40, {0, 8, 20, 36}));
  {
    std::string m;
    for (int i = 0; i < 64; ++i) m.append(kMagicBytes, 4);          // 65 parts
    r.push_back(m);
  }
  for (int i = 0; i < 40; ++i) {
    size_t n = rng() % 1500;
    std::vector<size_t> at;
    if (n >= 4 && i % 3 == 0) {
      size_t k = 1 + rng() % 4;
      for (size_t j = 0; j < k; ++j) at.push_back((rng() % (n / 4)) * 4);
    }
    r.push_back(WithMagic(&rng, n, at));
  }
  {
    std::vector<size_t> at;
    for (size_t a = 100; a + 4 <= 20000; a += 1236) at.push_back(a);  // 1236 = 4 * 309
    r.push_back(WithMagic(&rng, 20003, at));
  }
  r.push_back(Bytes(&rng, 3));
  return r;
}

// Few small records, for part counts larger than the record count (empty parts).
std::vector<std::string> SmallRecords() {
  std::mt19937 rng(7u);
  std::vector<std::string> r;
  for (int i = 0; i < 12; ++i) r.push_back(Bytes(&rng, 1 + (i * 5) % 13));
  r[5] = std::string(kMagicBytes, 4) + r[5];
  return r;
}

// u32 little-endian length, then the bytes, per record (a trivial container the tests parse).
void WritePayloads(const std::string &path, const std::vector<std::string> &recs) {
  std::unique_ptr<dmlc::Stream> fo(dmlc::Stream::Create(path.c_str(), "w"));
  for (const std::string &s : recs) {
    uint32_t n = static_cast<uint32_t>(s.size());
    fo->Write(&n, 4);
    if (n) fo->Write(s.data(), n);
  }
}

// Writes the .rec with RecordIOWriter and an .idx the way MXIndexedRecordIO.write_idx does
// ("%s\t%d\n" % (key, tell-before-write)). Returns the offsets and the part counts.
void WriteRec(const std::string &rec, const std::string &idx, const std::vector<std::string> &recs,
    const std::vector<long> &keys, std::vector<size_t> *offsets, std::vector<size_t> *parts) {
  std::unique_ptr<dmlc::Stream> fo(dmlc::Stream::Create(rec.c_str(), "w"));
  std::unique_ptr<dmlc::Stream> fi(dmlc::Stream::Create(idx.c_str(), "w"));
  dmlc::RecordIOWriter writer(fo.get());
  for (size_t i = 0; i < recs.size(); ++i) {
    size_t before = writer.except_counter();
    size_t pos = writer.Tell();
    writer.WriteRecord(recs[i]);
    offsets->push_back(pos);
    parts->push_back(1 + writer.except_counter() - before);
    std::ostringstream line;
    line << keys[i] << '\t' << pos << '\n';
    fi->Write(line.str().data(), line.str().size());
  }
}

// The same index with its lines in a shuffled order: dmlc's indexed splitter sorts the offsets.
void WriteShuffledIdx(const std::string &path, const std::vector<long> &keys, const std::vector<size_t> &offsets) {
  std::vector<size_t> order(keys.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937 rng(99u);
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
  std::unique_ptr<dmlc::Stream> fo(dmlc::Stream::Create(path.c_str(), "w"));
  for (size_t i : order) {
    std::ostringstream line;
    line << keys[i] << '\t' << offsets[i] << '\n';
    fo->Write(line.str().data(), line.str().size());
  }
}

// Which record (by ordinal) a payload is; every payload in a file is distinct.
struct Lookup {
  std::map<std::string, size_t> at;
  explicit Lookup(const std::vector<std::string> &recs) {
    for (size_t i = 0; i < recs.size(); ++i) {
      CHECK(at.emplace(recs[i], i).second) << "duplicate payload " << i;
    }
  }
  size_t operator()(const char *p, size_t n) const {
    auto it = at.find(std::string(p, n));
    CHECK(it != at.end()) << "unknown payload of " << n << " bytes";
    return it->second;
  }
};

std::string Json(const std::vector<size_t> &v) {
  std::ostringstream o;
  o << '[';
  for (size_t i = 0; i < v.size(); ++i) o << (i ? "," : "") << v[i];
  o << ']';
  return o.str();
}

std::string JsonParts(const std::vector<std::vector<size_t>> &parts) {
  std::ostringstream o;
  o << '[';
  for (size_t i = 0; i < parts.size(); ++i) o << (i ? "," : "") << Json(parts[i]);
  o << ']';
  return o.str();
}

std::vector<std::vector<size_t>> SplitInputSplit(const std::string &rec, const std::string &idx,
    unsigned nparts, const char *type, const Lookup &lookup) {
  std::vector<std::vector<size_t>> out;
  for (unsigned k = 0; k < nparts; ++k) {
    std::unique_ptr<dmlc::InputSplit> split(dmlc::InputSplit::Create(
        rec.c_str(), idx.empty() ? nullptr : idx.c_str(), k, nparts, type));
    dmlc::InputSplit::Blob blob;
    std::vector<size_t> got;
    while (split->NextRecord(&blob)) got.push_back(lookup(static_cast<const char *>(blob.dptr), blob.size));
    out.push_back(got);
  }
  return out;
}

std::vector<std::vector<size_t>> SplitChunkReader(const std::string &bytes, unsigned nparts, const Lookup &lookup) {
  std::vector<uint32_t> aligned((bytes.size() + 3) / 4);
  std::memcpy(aligned.data(), bytes.data(), bytes.size());
  std::vector<std::vector<size_t>> out;
  for (unsigned k = 0; k < nparts; ++k) {
    dmlc::InputSplit::Blob chunk;
    chunk.dptr = aligned.data();
    chunk.size = bytes.size();
    dmlc::RecordIOChunkReader reader(chunk, k, nparts);
    dmlc::InputSplit::Blob blob;
    std::vector<size_t> got;
    while (reader.NextRecord(&blob)) got.push_back(lookup(static_cast<const char *>(blob.dptr), blob.size));
    out.push_back(got);
  }
  return out;
}

std::string ReadAll(const std::string &path) {
  std::unique_ptr<dmlc::Stream> fi(dmlc::Stream::Create(path.c_str(), "r"));
  std::string all, buf(65536, '\0');
  size_t n;
  while ((n = fi->Read(&buf[0], buf.size())) != 0) all.append(buf.data(), n);
  return all;
}

// Reads the file back with RecordIOReader (sequentially, then by Seek to each offset) and
// checks every payload: the fixtures are only written when dmlc reads them back unchanged.
void CheckReadBack(const std::string &rec, const std::vector<std::string> &recs, const std::vector<size_t> &offsets) {
  std::unique_ptr<dmlc::SeekStream> fi(dmlc::SeekStream::CreateForRead(rec.c_str()));
  dmlc::RecordIOReader reader(fi.get());
  std::string out;
  for (size_t i = 0; i < recs.size(); ++i) {
    CHECK(reader.NextRecord(&out) && out == recs[i]) << "sequential read-back of record " << i;
  }
  CHECK(!reader.NextRecord(&out)) << "extra record";
  for (size_t i = recs.size(); i-- > 0;) {
    dmlc::RecordIOReader seeker(fi.get());
    seeker.Seek(offsets[i]);
    CHECK(seeker.NextRecord(&out) && out == recs[i]) << "seek read-back of record " << i;
  }
}

struct FileSpec {
  std::string name;
  std::vector<std::string> recs;
  std::vector<long> keys;
  std::vector<unsigned> nparts;
};

}  // namespace

int main(int argc, char **argv) {
  CHECK_EQ(argc, 2) << "usage: recordio_golden <out-dir>";
  const std::string dir = argv[1];
  std::vector<FileSpec> specs;
  {
    FileSpec m{"mixed", MixedRecords(), {}, {1, 2, 3, 4, 5, 7, 8, 16, 64}};
    for (size_t i = 0; i < m.recs.size(); ++i) m.keys.push_back(static_cast<long>(1000 - 7 * i));
    specs.push_back(m);
    FileSpec s{"small", SmallRecords(), {}, {1, 2, 5, 11, 12, 13, 25, 40}};
    for (size_t i = 0; i < s.recs.size(); ++i) s.keys.push_back(static_cast<long>(i));
    specs.push_back(s);
  }
  std::ostringstream js;
  js << "{\n  \"generator\": \"tools/golden/recordio/recordio_golden.cc\",\n  \"files\": {";
  for (size_t f = 0; f < specs.size(); ++f) {
    const FileSpec &spec = specs[f];
    const std::string rec = dir + "/" + spec.name + ".rec", idx = dir + "/" + spec.name + ".idx";
    const std::string shuffled = dir + "/" + spec.name + ".shuffled.idx";
    std::vector<size_t> offsets, parts;
    WriteRec(rec, idx, spec.recs, spec.keys, &offsets, &parts);
    WriteShuffledIdx(shuffled, spec.keys, offsets);
    WritePayloads(dir + "/" + spec.name + ".payloads", spec.recs);
    CheckReadBack(rec, spec.recs, offsets);
    Lookup lookup(spec.recs);
    const std::string bytes = ReadAll(rec);
    js << (f ? "," : "") << "\n    \"" << spec.name << "\": {\n"
       << "      \"rec\": \"" << spec.name << ".rec\", \"idx\": \"" << spec.name << ".idx\", \"shuffledIdx\": \""
       << spec.name << ".shuffled.idx\", \"payloads\": \"" << spec.name << ".payloads\",\n"
       << "      \"size\": " << bytes.size() << ", \"count\": " << spec.recs.size() << ",\n"
       << "      \"offsets\": " << Json(offsets) << ",\n"
       << "      \"parts\": " << Json(parts) << ",\n"
       << "      \"splits\": [";
    for (size_t j = 0; j < spec.nparts.size(); ++j) {
      unsigned n = spec.nparts[j];
      js << (j ? "," : "") << "\n        {\"numParts\": " << n
         << ",\n         \"inputSplit\": " << JsonParts(SplitInputSplit(rec, "", n, "recordio", lookup))
         << ",\n         \"chunkReader\": " << JsonParts(SplitChunkReader(bytes, n, lookup))
         << ",\n         \"indexedInputSplit\": " << JsonParts(SplitInputSplit(rec, idx, n, "indexed_recordio", lookup))
         << ",\n         \"shuffledIndexedInputSplit\": "
         << JsonParts(SplitInputSplit(rec, shuffled, n, "indexed_recordio", lookup)) << "}";
    }
    js << "\n      ]\n    }";
  }
  js << "\n  }\n}\n";
  std::unique_ptr<dmlc::Stream> fo(dmlc::Stream::Create((dir + "/manifest.json").c_str(), "w"));
  fo->Write(js.str().data(), js.str().size());
  std::printf("wrote %zu files' fixtures to %s\n", specs.size(), dir.c_str());
  return 0;
}
