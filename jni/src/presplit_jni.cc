// libpresplit_jni: the JNI glue between presplit-hbase.jar (io.presplit.hbase.nativelib) and
// libpresplit. Type conversion and error translation only; every decision is libpresplit's.
//
// Rules kept by every entry point:
//  - no C++ exception crosses into the JVM: each body runs inside Guard(), which turns a
//    presplit::Status, a std::exception or anything else into a NativeException;
//  - a Java exception already pending (e.g. OutOfMemoryError from NewByteArray) is left to
//    propagate; no further JNI call that could fail is made after it;
//  - classes and constructors are looked up once in JNI_OnLoad and kept as global references.
//
// The generated header (javac -h of PresplitNative.java) is included, so a Java signature that
// drifts from these definitions fails to compile here instead of failing at run time.
#include <jni.h>

#include <cstdint>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "io_presplit_hbase_nativelib_PresplitNative.h"
#include "presplit/field_pointer.h"
#include "presplit/layout.h"
#include "presplit/load_split.h"
#include "presplit/split_algorithms.h"
#include "presplit/split_points.h"
#include "presplit/split_policy.h"
#include "presplit/status.h"
#include "presplit/table_canonical.h"
#include "presplit/table_config.h"
#include "presplit/table_derived.h"

namespace {

constexpr jint kAbiVersion = 5;  // PresplitNative.ABI_VERSION
constexpr jint kJniVersion = JNI_VERSION_1_8;

struct Cache {
  jclass native_exception = nullptr;  // io.presplit.hbase.nativelib.NativeException
  jmethodID native_exception_ctor = nullptr;
  jclass load_split_choice = nullptr;  // io.presplit.hbase.nativelib.LoadSplitChoice
  jmethodID load_split_choice_ctor = nullptr;
  jclass byte_array = nullptr;      // byte[]
  jclass document_check = nullptr;  // io.presplit.hbase.nativelib.DocumentCheck
  jmethodID document_check_ctor = nullptr;
  jclass string = nullptr;  // java.lang.String
};
Cache g_cache;

// Thrown inside Guard() bodies to report an error; caught and translated before returning.
struct JniError {
  presplit::Status status;
};

// Raised when a Java exception is already pending: Guard() returns without touching it.
struct JavaPending {};

[[noreturn]] void Fail(presplit::Status status) { throw JniError{std::move(status)}; }
[[noreturn]] void Invalid(std::string message) {
  Fail(presplit::Status::InvalidArgument(std::move(message)));
}

void CheckPending(JNIEnv* env) {
  if (env->ExceptionCheck()) throw JavaPending{};
}

// NewStringUTF needs modified UTF-8: printable ASCII passes, every other byte becomes \xHH.
std::string SafeText(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7F) {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

void ThrowNativeException(JNIEnv* env, std::string_view code, std::string_view message) {
  if (env->ExceptionCheck()) return;  // keep the first exception
  jstring jcode = env->NewStringUTF(SafeText(code).c_str());
  if (jcode == nullptr) return;  // OutOfMemoryError pending
  jstring jmessage = env->NewStringUTF(SafeText(message).c_str());
  if (jmessage == nullptr) return;
  auto ex = static_cast<jthrowable>(
      env->NewObject(g_cache.native_exception, g_cache.native_exception_ctor, jcode, jmessage));
  if (ex == nullptr) return;
  env->Throw(ex);
  env->DeleteLocalRef(ex);
  env->DeleteLocalRef(jmessage);
  env->DeleteLocalRef(jcode);
}

// Runs body(); on any failure leaves a Java exception pending and returns fallback.
template <typename R, typename F>
R Guard(JNIEnv* env, R fallback, F&& body) {
  try {
    return body();
  } catch (const JniError& e) {
    ThrowNativeException(env, presplit::StatusCodeName(e.status.code()), e.status.message());
  } catch (const JavaPending&) {
    // The pending Java exception propagates as it is.
  } catch (const std::bad_alloc&) {
    ThrowNativeException(env, "INTERNAL", "out of native memory");
  } catch (const std::exception& e) {
    ThrowNativeException(env, "INTERNAL", std::string("unexpected C++ exception: ") + e.what());
  } catch (...) {
    ThrowNativeException(env, "INTERNAL", "unexpected C++ exception of unknown type");
  }
  return fallback;
}

template <typename T>
T Unwrap(presplit::Result<T> result) {
  if (!result.ok()) Fail(result.status());
  return std::move(result).value();
}

std::string ToBytes(JNIEnv* env, jbyteArray array, const char* what) {
  if (array == nullptr) Invalid(std::string(what) + " must not be null");
  jsize length = env->GetArrayLength(array);
  std::string out(static_cast<size_t>(length), '\0');
  if (length > 0) {
    env->GetByteArrayRegion(array, 0, length, reinterpret_cast<jbyte*>(out.data()));
    CheckPending(env);
  }
  return out;
}

std::string ToString(JNIEnv* env, jstring text, const char* what) {
  if (text == nullptr) Invalid(std::string(what) + " must not be null");
  // Modified UTF-8; presplit's names are ASCII, anything else is rejected by the parsers.
  const char* chars = env->GetStringUTFChars(text, nullptr);
  if (chars == nullptr) throw JavaPending{};
  std::string out(chars);
  env->ReleaseStringUTFChars(text, chars);
  return out;
}

jbyteArray ToJava(JNIEnv* env, std::string_view bytes) {
  jbyteArray array = env->NewByteArray(static_cast<jsize>(bytes.size()));
  if (array == nullptr) throw JavaPending{};
  if (!bytes.empty()) {
    env->SetByteArrayRegion(array, 0, static_cast<jsize>(bytes.size()),
                            reinterpret_cast<const jbyte*>(bytes.data()));
    CheckPending(env);
  }
  return array;
}

std::vector<uint64_t> ToCounts(JNIEnv* env, jlongArray array, const char* what, jsize expected) {
  if (array == nullptr) Invalid(std::string(what) + " must not be null");
  jsize length = env->GetArrayLength(array);
  if (length != expected) {
    Invalid(std::string(what) + " has " + std::to_string(length) + " entries, keys has " +
            std::to_string(expected));
  }
  std::vector<jlong> values(static_cast<size_t>(length));
  if (length > 0) {
    env->GetLongArrayRegion(array, 0, length, values.data());
    CheckPending(env);
  }
  std::vector<uint64_t> out;
  out.reserve(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] < 0) {
      Invalid(std::string(what) + "[" + std::to_string(i) + "] is negative (" +
              std::to_string(values[i]) + ")");
    }
    out.push_back(static_cast<uint64_t>(values[i]));
  }
  return out;
}

presplit::SizePolicyParams ToSizeParams(jint kind, jlong max_file_size, jlong flush_size,
                                        jlong initial_size, jdouble jitter, jlong jitter_seed,
                                        jboolean overall_files) {
  using presplit::SizePolicyKind;
  if (kind < static_cast<jint>(SizePolicyKind::kConstantSize) ||
      kind > static_cast<jint>(SizePolicyKind::kStepping)) {
    Invalid("unknown size policy kind " + std::to_string(kind));
  }
  presplit::SizePolicyParams p{};
  p.kind = static_cast<SizePolicyKind>(kind);
  p.max_file_size = max_file_size;
  p.flush_size = flush_size;
  p.initial_size = initial_size;
  p.jitter = jitter;
  p.jitter_seed = static_cast<uint64_t>(jitter_seed);
  p.overall_files = overall_files == JNI_TRUE;
  return p;
}

void CheckRegions(jint regions) {
  if (regions < 0) Invalid("table_regions_on_server is negative (" + std::to_string(regions) + ")");
}

presplit::KeyLayout ToLayout(JNIEnv* env, jint salt_buckets, jstring salt_encoding, jint salt_width,
                             jstring salt_hash, jstring salt_from, jint group_length,
                             jbyteArray group_delimiter) {
  presplit::LayoutConfig config;
  if (salt_buckets < 0) Invalid("salt buckets is negative (" + std::to_string(salt_buckets) + ")");
  if (salt_buckets > 0) {
    presplit::SaltConfig salt;
    salt.buckets = salt_buckets;
    salt.encoding =
        Unwrap(presplit::ParseSaltEncoding(ToString(env, salt_encoding, "salt encoding")));
    salt.width = Unwrap(presplit::SaltWidth(salt.encoding, salt_buckets, salt_width));
    salt.hash = ToString(env, salt_hash, "salt hash");
    salt.from = ToString(env, salt_from, "salt from");
    config.salt = salt;
  }
  if (group_length < 0) Invalid("group length is negative (" + std::to_string(group_length) + ")");
  if (group_length > 0 && group_delimiter != nullptr) {
    Invalid("a group has either a length or a delimiter, not both");
  }
  if (group_length > 0) {
    config.group = presplit::GroupConfig{group_length, std::nullopt};
  } else if (group_delimiter != nullptr) {
    config.group =
        presplit::GroupConfig{std::nullopt, ToBytes(env, group_delimiter, "group delimiter")};
  }
  return Unwrap(presplit::LayoutFromConfig(config));
}

jclass GlobalClass(JNIEnv* env, const char* name) {
  jclass local = env->FindClass(name);
  if (local == nullptr) return nullptr;
  auto global = static_cast<jclass>(env->NewGlobalRef(local));
  env->DeleteLocalRef(local);
  return global;
}

// The sampler's candidates as parallel Java arrays (keys, left, right, contained counters).
std::vector<presplit::LoadCandidate> ToCandidates(JNIEnv* env, jobjectArray keys, jlongArray left,
                                                  jlongArray right, jlongArray contained) {
  if (keys == nullptr) Invalid("keys must not be null");
  jsize count = env->GetArrayLength(keys);
  std::vector<uint64_t> lefts = ToCounts(env, left, "left", count);
  std::vector<uint64_t> rights = ToCounts(env, right, "right", count);
  std::vector<uint64_t> containeds = ToCounts(env, contained, "contained", count);
  std::vector<presplit::LoadCandidate> candidates;
  candidates.reserve(static_cast<size_t>(count));
  for (jsize i = 0; i < count; ++i) {
    auto key = static_cast<jbyteArray>(env->GetObjectArrayElement(keys, i));
    CheckPending(env);
    std::string what = "keys[" + std::to_string(i) + "]";
    std::string bytes = ToBytes(env, key, what.c_str());
    env->DeleteLocalRef(key);
    candidates.push_back(
        presplit::LoadCandidate{std::move(bytes), lefts[i], rights[i], containeds[i]});
  }
  return candidates;
}

presplit::LoadSplitParams ToLoadSplitParams(jlong min_requests, jdouble max_imbalance,
                                            jdouble max_contained_fraction) {
  if (min_requests < 0) Invalid("min requests is negative (" + std::to_string(min_requests) + ")");
  presplit::LoadSplitParams params;
  params.min_requests = static_cast<uint64_t>(min_requests);
  params.max_imbalance = max_imbalance;
  params.max_contained_fraction = max_contained_fraction;
  return params;
}

// A LoadSplitChoice object, or null when nothing qualified.
jobject ToJavaChoice(JNIEnv* env, const std::optional<presplit::LoadSplitChoice>& choice) {
  if (!choice) return nullptr;
  jbyteArray key = ToJava(env, choice->key);
  jobject result = env->NewObject(g_cache.load_split_choice, g_cache.load_split_choice_ctor, key,
                                  static_cast<jdouble>(choice->imbalance),
                                  static_cast<jdouble>(choice->contained_fraction),
                                  static_cast<jlong>(choice->requests));
  env->DeleteLocalRef(key);
  if (result == nullptr) throw JavaPending{};
  return result;
}

// A Java String of printable text (messages, table names), or null for an empty optional.
jstring ToJavaString(JNIEnv* env, const std::optional<std::string>& text) {
  if (!text) return nullptr;
  jstring out = env->NewStringUTF(SafeText(*text).c_str());
  if (out == nullptr) throw JavaPending{};
  return out;
}

// The keys of a Java byte[][] packed into one buffer, and a view of each into it (taken once the
// buffer no longer grows): what BucketsOf and RekeyAll read. `what` names the array in errors
// ("keys" -> "keys[3] must not be null").
// Filled in place, never copied or moved: the views point into `bytes`.
struct PackedKeys {
  PackedKeys() = default;
  PackedKeys(const PackedKeys&) = delete;
  PackedKeys& operator=(const PackedKeys&) = delete;
  std::string bytes;
  std::vector<std::string_view> views;
};

void PackKeys(JNIEnv* env, jobjectArray keys, const std::string& what, PackedKeys& packed) {
  if (keys == nullptr) Invalid(what + " must not be null");
  const jsize count = env->GetArrayLength(keys);
  std::vector<size_t> ends(static_cast<size_t>(count));
  for (jsize i = 0; i < count; ++i) {
    auto key = static_cast<jbyteArray>(env->GetObjectArrayElement(keys, i));
    CheckPending(env);
    if (key == nullptr) Invalid(what + "[" + std::to_string(i) + "] must not be null");
    jsize length = env->GetArrayLength(key);
    size_t at = packed.bytes.size();
    packed.bytes.resize(at + static_cast<size_t>(length));
    if (length > 0) {
      env->GetByteArrayRegion(key, 0, length, reinterpret_cast<jbyte*>(packed.bytes.data() + at));
    }
    env->DeleteLocalRef(key);
    CheckPending(env);
    ends[static_cast<size_t>(i)] = packed.bytes.size();
  }
  packed.views.reserve(ends.size());
  size_t begin = 0;
  for (size_t end : ends) {
    packed.views.emplace_back(packed.bytes.data() + begin, end - begin);
    begin = end;
  }
}

jobjectArray ToJavaKeys(JNIEnv* env, const std::vector<std::string>& keys) {
  jobjectArray out =
      env->NewObjectArray(static_cast<jsize>(keys.size()), g_cache.byte_array, nullptr);
  if (out == nullptr) throw JavaPending{};
  for (size_t i = 0; i < keys.size(); ++i) {
    jbyteArray key = ToJava(env, keys[i]);
    env->SetObjectArrayElement(out, static_cast<jsize>(i), key);
    env->DeleteLocalRef(key);
    CheckPending(env);
  }
  return out;
}

jobjectArray ToJavaStrings(JNIEnv* env, const std::vector<std::string>& texts) {
  jobjectArray out = env->NewObjectArray(static_cast<jsize>(texts.size()), g_cache.string, nullptr);
  if (out == nullptr) throw JavaPending{};
  for (size_t i = 0; i < texts.size(); ++i) {
    jstring text = ToJavaString(env, texts[i]);
    env->SetObjectArrayElement(out, static_cast<jsize>(i), text);
    env->DeleteLocalRef(text);
    CheckPending(env);
  }
  return out;
}

}  // namespace

extern "C" {

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM* vm, void* /*reserved*/) {
  JNIEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), kJniVersion) != JNI_OK) return JNI_ERR;
  g_cache.native_exception = GlobalClass(env, "io/presplit/hbase/nativelib/NativeException");
  if (g_cache.native_exception == nullptr) return JNI_ERR;
  g_cache.native_exception_ctor = env->GetMethodID(g_cache.native_exception, "<init>",
                                                   "(Ljava/lang/String;Ljava/lang/String;)V");
  if (g_cache.native_exception_ctor == nullptr) return JNI_ERR;
  g_cache.load_split_choice = GlobalClass(env, "io/presplit/hbase/nativelib/LoadSplitChoice");
  if (g_cache.load_split_choice == nullptr) return JNI_ERR;
  g_cache.load_split_choice_ctor =
      env->GetMethodID(g_cache.load_split_choice, "<init>", "([BDDJ)V");
  if (g_cache.load_split_choice_ctor == nullptr) return JNI_ERR;
  g_cache.byte_array = GlobalClass(env, "[B");
  if (g_cache.byte_array == nullptr) return JNI_ERR;
  g_cache.document_check = GlobalClass(env, "io/presplit/hbase/nativelib/DocumentCheck");
  if (g_cache.document_check == nullptr) return JNI_ERR;
  g_cache.document_check_ctor =
      env->GetMethodID(g_cache.document_check, "<init>",
                       "([BLjava/lang/String;Ljava/lang/String;Ljava/lang/String;[[B"
                       "[Ljava/lang/String;)V");
  if (g_cache.document_check_ctor == nullptr) return JNI_ERR;
  g_cache.string = GlobalClass(env, "java/lang/String");
  if (g_cache.string == nullptr) return JNI_ERR;
  return kJniVersion;
}

JNIEXPORT void JNICALL JNI_OnUnload(JavaVM* vm, void* /*reserved*/) {
  JNIEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), kJniVersion) != JNI_OK) return;
  if (g_cache.native_exception != nullptr) env->DeleteGlobalRef(g_cache.native_exception);
  if (g_cache.load_split_choice != nullptr) env->DeleteGlobalRef(g_cache.load_split_choice);
  if (g_cache.byte_array != nullptr) env->DeleteGlobalRef(g_cache.byte_array);
  if (g_cache.document_check != nullptr) env->DeleteGlobalRef(g_cache.document_check);
  if (g_cache.string != nullptr) env->DeleteGlobalRef(g_cache.string);
  g_cache = Cache{};
}

JNIEXPORT jint JNICALL Java_io_presplit_hbase_nativelib_PresplitNative_nAbiVersion(JNIEnv*,
                                                                                   jclass) {
  return kAbiVersion;
}

JNIEXPORT jint JNICALL Java_io_presplit_hbase_nativelib_PresplitNative_nParseSizePolicy(
    JNIEnv* env, jclass, jstring name) {
  return Guard(env, jint{-1}, [&] {
    std::string text = ToString(env, name, "size policy name");
    return static_cast<jint>(Unwrap(presplit::ParseSizePolicy(text)));
  });
}

JNIEXPORT jlong JNICALL Java_io_presplit_hbase_nativelib_PresplitNative_nSplitSizeThreshold(
    JNIEnv* env, jclass, jint kind, jlong max_file_size, jlong flush_size, jlong initial_size,
    jdouble jitter, jlong jitter_seed, jboolean overall_files, jint regions) {
  return Guard(env, jlong{-1}, [&] {
    auto params = ToSizeParams(kind, max_file_size, flush_size, initial_size, jitter, jitter_seed,
                               overall_files);
    CheckRegions(regions);
    return static_cast<jlong>(presplit::SplitSizeThreshold(params, regions));
  });
}

JNIEXPORT jboolean JNICALL Java_io_presplit_hbase_nativelib_PresplitNative_nShouldSplitBySize(
    JNIEnv* env, jclass, jint kind, jlong max_file_size, jlong flush_size, jlong initial_size,
    jdouble jitter, jlong jitter_seed, jboolean overall_files, jint regions,
    jlongArray store_sizes) {
  return Guard(env, jboolean{JNI_FALSE}, [&] {
    auto params = ToSizeParams(kind, max_file_size, flush_size, initial_size, jitter, jitter_seed,
                               overall_files);
    CheckRegions(regions);
    if (store_sizes == nullptr) Invalid("store sizes must not be null");
    jsize count = env->GetArrayLength(store_sizes);
    std::vector<int64_t> sizes(static_cast<size_t>(count));
    if (count > 0) {
      env->GetLongArrayRegion(store_sizes, 0, count, reinterpret_cast<jlong*>(sizes.data()));
      CheckPending(env);
    }
    bool split = presplit::ShouldSplitBySize(params, regions, sizes.data(), sizes.size());
    return split ? jboolean{JNI_TRUE} : jboolean{JNI_FALSE};
  });
}

JNIEXPORT void JNICALL Java_io_presplit_hbase_nativelib_PresplitNative_nValidateLayout(
    JNIEnv* env, jclass, jint salt_buckets, jstring salt_encoding, jint salt_width,
    jstring salt_hash, jstring salt_from, jint group_length, jbyteArray group_delimiter) {
  Guard(env, 0, [&] {
    ToLayout(env, salt_buckets, salt_encoding, salt_width, salt_hash, salt_from, group_length,
             group_delimiter);
    return 0;
  });
}

JNIEXPORT jbyteArray JNICALL Java_io_presplit_hbase_nativelib_PresplitNative_nSnapSplitPoint(
    JNIEnv* env, jclass, jint salt_buckets, jstring salt_encoding, jint salt_width,
    jstring salt_hash, jstring salt_from, jint group_length, jbyteArray group_delimiter,
    jbyteArray region_start, jbyteArray region_end, jbyteArray candidate) {
  return Guard(env, static_cast<jbyteArray>(nullptr), [&]() -> jbyteArray {
    presplit::KeyLayout layout = ToLayout(env, salt_buckets, salt_encoding, salt_width, salt_hash,
                                          salt_from, group_length, group_delimiter);
    std::string start = ToBytes(env, region_start, "region start");
    std::string end = ToBytes(env, region_end, "region end");
    std::string point = ToBytes(env, candidate, "candidate split point");
    std::optional<std::string> snapped =
        Unwrap(presplit::SnapSplitPoint(layout, start, end, point));
    if (!snapped) return nullptr;
    return ToJava(env, *snapped);
  });
}

JNIEXPORT jint JNICALL Java_io_presplit_hbase_nativelib_PresplitNative_nBucketOf(
    JNIEnv* env, jclass, jint salt_buckets, jstring salt_encoding, jint salt_width,
    jstring salt_hash, jstring salt_from, jint group_length, jbyteArray group_delimiter,
    jbyteArray logical_key) {
  return Guard(env, jint{-1}, [&] {
    presplit::KeyLayout layout = ToLayout(env, salt_buckets, salt_encoding, salt_width, salt_hash,
                                          salt_from, group_length, group_delimiter);
    std::string key = ToBytes(env, logical_key, "logical key");
    return static_cast<jint>(Unwrap(presplit::BucketOf(layout, key)));
  });
}

JNIEXPORT void JNICALL Java_io_presplit_hbase_nativelib_PresplitNative_nBucketsOf(
    JNIEnv* env, jclass, jint salt_buckets, jstring salt_encoding, jint salt_width,
    jstring salt_hash, jstring salt_from, jint group_length, jbyteArray group_delimiter,
    jobjectArray keys, jintArray out) {
  Guard(env, 0, [&] {
    presplit::KeyLayout layout = ToLayout(env, salt_buckets, salt_encoding, salt_width, salt_hash,
                                          salt_from, group_length, group_delimiter);
    if (keys == nullptr) Invalid("keys must not be null");
    if (out == nullptr) Invalid("out must not be null");
    jsize count = env->GetArrayLength(keys);
    jsize out_length = env->GetArrayLength(out);
    if (out_length != count) {
      Invalid("out has " + std::to_string(out_length) + " entries, keys has " +
              std::to_string(count));
    }
    if (count == 0) return 0;
    PackedKeys packed;
    PackKeys(env, keys, "keys", packed);
    std::vector<int> buckets;
    presplit::BucketsOf(layout, packed.views, buckets);
    std::vector<jint> result(buckets.begin(), buckets.end());
    env->SetIntArrayRegion(out, 0, count, result.data());
    CheckPending(env);
    return 0;
  });
}

JNIEXPORT jobjectArray JNICALL Java_io_presplit_hbase_nativelib_PresplitNative_nRekeyAll(
    JNIEnv* env, jclass, jint from_buckets, jstring from_encoding, jint from_width,
    jstring from_hash, jstring from_from, jint from_group_length, jbyteArray from_delimiter,
    jint to_buckets, jstring to_encoding, jint to_width, jstring to_hash, jstring to_from,
    jint to_group_length, jbyteArray to_delimiter, jobjectArray row_keys) {
  return Guard(env, static_cast<jobjectArray>(nullptr), [&]() -> jobjectArray {
    presplit::KeyLayout from = ToLayout(env, from_buckets, from_encoding, from_width, from_hash,
                                        from_from, from_group_length, from_delimiter);
    presplit::KeyLayout to = ToLayout(env, to_buckets, to_encoding, to_width, to_hash, to_from,
                                      to_group_length, to_delimiter);
    PackedKeys packed;
    PackKeys(env, row_keys, "row keys", packed);
    const std::vector<std::string_view>& views = packed.views;
    const jsize count = static_cast<jsize>(views.size());
    std::string out;
    std::vector<size_t> ends;
    std::vector<size_t> failed;
    presplit::RekeyAll(from, to, views, out, ends, failed);
    // The first key that does not fit fails the whole call, with Rekey's message naming it.
    if (!failed.empty()) Fail(presplit::Rekey(from, to, views[failed.front()]).status());
    jobjectArray result = env->NewObjectArray(count, g_cache.byte_array, nullptr);
    if (result == nullptr) throw JavaPending{};
    size_t begin = 0;
    for (jsize i = 0; i < count; ++i) {
      size_t end = ends[static_cast<size_t>(i)];
      jbyteArray key = ToJava(env, std::string_view(out.data() + begin, end - begin));
      begin = end;
      env->SetObjectArrayElement(result, i, key);
      env->DeleteLocalRef(key);
      CheckPending(env);
    }
    return result;
  });
}

JNIEXPORT jobject JNICALL Java_io_presplit_hbase_nativelib_PresplitNative_nChooseLoadSplitKey(
    JNIEnv* env, jclass, jobjectArray keys, jlongArray left, jlongArray right, jlongArray contained,
    jlong min_requests, jdouble max_imbalance, jdouble max_contained_fraction) {
  return Guard(env, static_cast<jobject>(nullptr), [&]() -> jobject {
    std::vector<presplit::LoadCandidate> candidates =
        ToCandidates(env, keys, left, right, contained);
    return ToJavaChoice(
        env,
        Unwrap(presplit::ChooseLoadSplitKey(
            candidates, ToLoadSplitParams(min_requests, max_imbalance, max_contained_fraction))));
  });
}

JNIEXPORT jobject JNICALL
Java_io_presplit_hbase_nativelib_PresplitNative_nChooseGroupSafeLoadSplitPoint(
    JNIEnv* env, jclass, jint salt_buckets, jstring salt_encoding, jint salt_width,
    jstring salt_hash, jstring salt_from, jint group_length, jbyteArray group_delimiter,
    jbyteArray region_start, jbyteArray region_end, jobjectArray keys, jlongArray left,
    jlongArray right, jlongArray contained, jlong min_requests, jdouble max_imbalance,
    jdouble max_contained_fraction) {
  return Guard(env, static_cast<jobject>(nullptr), [&]() -> jobject {
    presplit::KeyLayout layout = ToLayout(env, salt_buckets, salt_encoding, salt_width, salt_hash,
                                          salt_from, group_length, group_delimiter);
    std::string start = ToBytes(env, region_start, "region start");
    std::string end = ToBytes(env, region_end, "region end");
    std::vector<presplit::LoadCandidate> candidates =
        ToCandidates(env, keys, left, right, contained);
    return ToJavaChoice(
        env, Unwrap(presplit::ChooseGroupSafeLoadSplitPoint(
                 layout, start, end, candidates,
                 ToLoadSplitParams(min_requests, max_imbalance, max_contained_fraction))));
  });
}

JNIEXPORT jobject JNICALL Java_io_presplit_hbase_nativelib_PresplitNative_nCheckTableDocument(
    JNIEnv* env, jclass, jbyteArray utf8) {
  return Guard(env, static_cast<jobject>(nullptr), [&]() -> jobject {
    const std::string text = ToBytes(env, utf8, "document");
    presplit::Result<presplit::TableConfig> config = presplit::ParseTableConfig(text);
    std::optional<std::string> canonical, table, pointer, message;
    std::vector<std::string> keys, notes;
    if (config.ok()) {
      // As presplitctl plan: the keys ParseTableConfig already computed once, the notes of a
      // sampled split.
      keys = Unwrap(presplit::ComputeSplitKeys(*config));
      if (config->split.algorithm == presplit::SplitAlgorithm::kSampled) {
        auto sampled = presplit::SampledSplit(config->split.sample, config->split.regions);
        if (sampled.ok()) notes = sampled->notes;
      }
      canonical = presplit::TableConfigToJson(*config);
      table = config->FullName();
    } else if (config.status().code() == presplit::StatusCode::kInvalidArgument) {
      presplit::FieldErrorParts parts = presplit::SplitFieldError(config.status().message());
      pointer = std::move(parts.pointer);
      message = std::move(parts.message);
    } else {
      Fail(config.status());  // not a verdict on the document: an internal failure
    }
    jbyteArray jcanonical = canonical ? ToJava(env, *canonical) : nullptr;
    jstring jtable = ToJavaString(env, table);
    jstring jpointer = ToJavaString(env, pointer);
    jstring jmessage = ToJavaString(env, message);
    jobjectArray jkeys = ToJavaKeys(env, keys);
    jobjectArray jnotes = ToJavaStrings(env, notes);
    jobject result = env->NewObject(g_cache.document_check, g_cache.document_check_ctor, jcanonical,
                                    jtable, jpointer, jmessage, jkeys, jnotes);
    if (result == nullptr) throw JavaPending{};
    return result;
  });
}

JNIEXPORT void JNICALL Java_io_presplit_hbase_nativelib_PresplitNative_nRaiseForTest(JNIEnv* env,
                                                                                     jclass,
                                                                                     jstring what) {
  Guard(env, 0, [&] {
    std::string kind = ToString(env, what, "what");
    if (kind == "status") Fail(presplit::Status::Internal("raised for a test"));
    if (kind == "std-exception") throw std::runtime_error("raised for a test");
    if (kind == "bad-alloc") throw std::bad_alloc();
    if (kind == "unknown") throw 42;
    if (kind == "binary-message") Invalid(std::string("bytes \x00\xff\n end", 13));
    Invalid("unknown test error kind '" + kind + "'");
    return 0;
  });
}

}  // extern "C"
