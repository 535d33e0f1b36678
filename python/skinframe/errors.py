"""skinframe.Error and one subclass per library result code, each carrying the library's message and field."""
from ._skinframe import ffi, lib


class Error(Exception):
    """A failure reported by the library: ``message`` (one line, as the library wrote it), ``field`` (the
    offending input, e.g. ``"mesh.joints"``; ``""`` when none), ``index`` (the element within it, or None)
    and ``code`` (the result's name, e.g. ``"SF_ERROR_JOINT_INDEX"``)."""

    code = "SF_ERROR"

    def __init__(self, message, field="", index=None):
        super().__init__(message)
        self.message = message
        self.field = field
        self.index = index


class InvalidArgument(Error, ValueError): code = "SF_ERROR_INVALID_ARGUMENT"
class OutOfMemory(Error, MemoryError): code = "SF_ERROR_OUT_OF_MEMORY"
class NotFinite(Error, ValueError): code = "SF_ERROR_NOT_FINITE"
class IndexRange(Error, ValueError): code = "SF_ERROR_INDEX_RANGE"
class JointIndex(Error, ValueError): code = "SF_ERROR_JOINT_INDEX"
class CountMismatch(Error, ValueError): code = "SF_ERROR_COUNT_MISMATCH"
class NegativeWeight(Error, ValueError): code = "SF_ERROR_NEGATIVE_WEIGHT"
class ZeroWeights(Error, ValueError): code = "SF_ERROR_ZERO_WEIGHTS"
class WeightSum(Error, ValueError): code = "SF_ERROR_WEIGHT_SUM"
class StrideError(Error, ValueError): code = "SF_ERROR_STRIDE"
class MissingStream(Error, ValueError): code = "SF_ERROR_MISSING_STREAM"
class UnknownName(Error, ValueError): code = "SF_ERROR_UNKNOWN_NAME"
class GltfError(Error, ValueError): code = "SF_ERROR_GLTF"
class FileError(Error, OSError): code = "SF_ERROR_IO"
class Unsupported(Error): code = "SF_ERROR_UNSUPPORTED"
class TooLarge(Error, ValueError): code = "SF_ERROR_TOO_LARGE"


SIZE_MAX = int(ffi.cast("size_t", -1))
_BY_CODE = {getattr(lib, cls.code): cls for cls in Error.__subclasses__()}


def raise_for(result, err):
    """Raises the Error subclass of result with err's message, field and index (no-op for SF_OK)."""
    if result == lib.SF_OK:
        return
    message = ffi.string(err.message).decode("utf-8", "replace") if err != ffi.NULL else ""
    field = ffi.string(err.field).decode("utf-8", "replace") if err != ffi.NULL else ""
    if not message:
        message = ffi.string(lib.sf_result_string(result)).decode()
    index = err.index if err != ffi.NULL and err.index != SIZE_MAX else None
    raise _BY_CODE.get(result, Error)(message, field, index)

