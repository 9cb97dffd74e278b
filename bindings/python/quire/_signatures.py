"""Digital signatures: :class:`SigningIdentity`, ``Document.sign(...)`` and
``Document.signatures(...)`` (include/quire/signatures.h, docs/signatures.md).

Signing appends one incremental update (earlier bytes untouched): PAdES baseline B-B
(``ETSI.CAdES.detached``), B-T with a time stamp from a callable the caller gives (Quire
opens no connection), or ``adbe.pkcs7.detached``; certification signatures with DocMDP
P = 1, 2, 3::

    identity = quire.SigningIdentity.from_pem(Path("signer.key"), Path("signer.pem"))
    with quire.Document("contract.pdf") as doc:
        doc.sign("signed.pdf", identity, rect=(72, 72, 300, 140), reason="Approved")
        for report in doc.signatures(trust_roots=Path("root.pem")):
            print(report.field_name, report.valid, report.problems)

Validation reads the document's file (not its unsaved changes) and reports, for each
signature, integrity, coverage, the changes after it and whether its DocMDP allows them, the
signer's chain against the caller's trust roots, the time stamp, and each problem found. A
hostile /Contents is a problem of its signature, never an exception.

This module is imported when first used (``quire.SigningIdentity``, ``doc.sign``), not by
``import quire``.
"""

from __future__ import annotations

import ctypes
import datetime
import os
import threading
import weakref
from ctypes import byref, c_int32, c_size_t
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, List, Optional, Sequence, Tuple, Union

from . import _raw
from ._enums import IntEnum
from ._errors import InternalError, InvalidArgumentError, check, text
from ._ffi import OwnedHandle, c_string, optional_c_string, query_bytes

if TYPE_CHECKING:
    from ._document import Document

PathType = Union[str, "os.PathLike[str]"]
#: PEM or PKCS#12 content: the bytes or text themselves, or a :class:`pathlib.Path` (any
#: ``os.PathLike``) to read them from. A ``str`` is content, never a path.
Source = Union[bytes, str, "os.PathLike[str]"]


def _content(source: Source, what: str) -> bytes:
    if isinstance(source, os.PathLike):
        with open(source, "rb") as f:
            return f.read()
    if isinstance(source, str):
        return source.encode("utf-8")
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source)
    raise TypeError("%s: bytes, str or a path, not %s" % (what, type(source).__name__))


def _pem(sources: Union[None, Source, Sequence[Source]], what: str) -> bytes:
    """PEM text from one source or several, concatenated."""
    if sources is None:
        return b""
    if isinstance(sources, (bytes, str, os.PathLike)):
        return _content(sources, what)
    return b"\n".join(_content(s, what) for s in sources)


class SignatureFormat(IntEnum):
    """How a signature's /Contents is made (its /SubFilter)."""

    PADES = _raw.QUIRE_SIGNATURE_PADES
    """PAdES baseline, ``ETSI.CAdES.detached`` (the default)."""
    PKCS7 = _raw.QUIRE_SIGNATURE_PKCS7
    """``adbe.pkcs7.detached``, with a signing-time attribute, for old readers."""


class DigestAlgorithm(IntEnum):
    """The digest of a signature's signed attributes (``quire_digest_algorithm``)."""

    SHA256 = _raw.QUIRE_DIGEST_SHA256
    SHA384 = _raw.QUIRE_DIGEST_SHA384
    SHA512 = _raw.QUIRE_DIGEST_SHA512
    SHA1 = _raw.QUIRE_DIGEST_SHA1
    """Read in validation only (reported weak)."""
    UNKNOWN = _raw.QUIRE_DIGEST_UNKNOWN


class DocMDP(IntEnum):
    """The permissions of a certification signature (``int(p) & 0xFF`` is /P)."""

    NONE = _raw.QUIRE_DOCMDP_NONE
    NO_CHANGES = _raw.QUIRE_DOCMDP_NO_CHANGES
    FORM_FILLING = _raw.QUIRE_DOCMDP_FORM_FILLING
    ANNOTATIONS = _raw.QUIRE_DOCMDP_ANNOTATIONS


class SignatureCoverage(IntEnum):
    """What of the file a signature covers (``quire_signature_coverage``)."""

    ENTIRE_FILE = _raw.QUIRE_COVERAGE_ENTIRE_FILE
    ENTIRE_REVISION = _raw.QUIRE_COVERAGE_ENTIRE_REVISION
    PARTIAL = _raw.QUIRE_COVERAGE_PARTIAL


class Modification(IntEnum):
    """The widest kind of change made after a signature."""

    NONE = _raw.QUIRE_MODIFICATION_NONE
    VALIDATION_DATA = _raw.QUIRE_MODIFICATION_VALIDATION_DATA
    FORM_FILLING = _raw.QUIRE_MODIFICATION_FORM_FILLING
    ANNOTATIONS = _raw.QUIRE_MODIFICATION_ANNOTATIONS
    OTHER = _raw.QUIRE_MODIFICATION_OTHER


class SignatureProblemKind(IntEnum):
    """The kind of a problem a validation reports (``quire_signature_problem``)."""

    MALFORMED = _raw.QUIRE_PROBLEM_MALFORMED
    BYTE_RANGE = _raw.QUIRE_PROBLEM_BYTE_RANGE
    DIGEST_MISMATCH = _raw.QUIRE_PROBLEM_DIGEST_MISMATCH
    SIGNATURE_INVALID = _raw.QUIRE_PROBLEM_SIGNATURE_INVALID
    CMS_UNREADABLE = _raw.QUIRE_PROBLEM_CMS_UNREADABLE
    UNSUPPORTED = _raw.QUIRE_PROBLEM_UNSUPPORTED
    UNTRUSTED = _raw.QUIRE_PROBLEM_UNTRUSTED
    EXPIRED = _raw.QUIRE_PROBLEM_EXPIRED
    KEY_USAGE = _raw.QUIRE_PROBLEM_KEY_USAGE
    NOT_IN_SIGNED_REVISION = _raw.QUIRE_PROBLEM_NOT_IN_SIGNED_REVISION
    DISALLOWED_CHANGE = _raw.QUIRE_PROBLEM_DISALLOWED_CHANGE
    TIMESTAMP = _raw.QUIRE_PROBLEM_TIMESTAMP
    WEAK_ALGORITHM = _raw.QUIRE_PROBLEM_WEAK_ALGORITHM
    PROFILE = _raw.QUIRE_PROBLEM_PROFILE


class SignatureGuard(IntEnum):
    """What annotation and form changes do when the document's certification forbids them."""

    REFUSE = _raw.QUIRE_SIGNATURE_GUARD_REFUSE
    """Raise :class:`quire.StateError` (the default)."""
    WARN = _raw.QUIRE_SIGNATURE_GUARD_WARN
    """Make the change and add a warning to the document's warnings."""
    ALLOW = _raw.QUIRE_SIGNATURE_GUARD_ALLOW


def _enum(cls: Any, value: Any, what: str) -> Any:
    """An enum member from a member, its name (any case) or its value."""
    if isinstance(value, cls):
        return value
    if isinstance(value, str):
        try:
            return cls[value.upper().replace("-", "")]
        except KeyError:
            pass
    try:
        return cls(value)
    except ValueError:
        raise InvalidArgumentError(_raw.QUIRE_EINVAL, "%s: %r is not one of %s" % (what, value, [m.name for m in cls])) from None


class SigningIdentity(OwnedHandle):
    """A signer's private key and certificates (``quire_signing_identity``), read once and
    used for any number of signatures. Immutable; close it (or use it as a context
    manager) to release it at once, otherwise garbage collection does."""

    __slots__ = ("_handle", "_finalizer", "_lock", "__weakref__")
    _closed_message = "the signing identity is closed"

    def __init__(self, handle: Any) -> None:
        if not handle:
            raise InternalError(_raw.QUIRE_EINTERNAL, "the library returned QUIRE_OK and a NULL identity")
        self._handle = handle
        self._finalizer = weakref.finalize(self, _raw.lib.quire_signing_identity_free, handle)
        self._lock = threading.RLock()

    @classmethod
    def from_pem(cls, key: Source, certificates: Union[None, Source, Sequence[Source]] = None, *,
                 password: Optional[Union[str, bytes]] = None) -> "SigningIdentity":
        """Reads the private key (PKCS#8, PKCS#1, SEC1, or encrypted PKCS#8 with
        ``password``) and the certificates (the signer's and its chain; ``None`` when the
        key's PEM holds them). RSA of 2048 bits or more, ECDSA P-256 and P-384.

        Raises:
            InvalidArgumentError: not PEM, a wrong password, no certificate of the key.
            UnsupportedError: a key or cipher Quire does not sign with.
        """
        key_pem = _content(key, "key")
        certs = _pem(certificates, "certificates") if certificates is not None else None
        out = _raw.quire_signing_identity_p()
        check(_raw.lib.quire_signing_identity_from_pem(
            byref(out), key_pem, len(key_pem), certs, len(certs) if certs is not None else 0,
            optional_c_string(password, "password")))
        return cls(out)

    @classmethod
    def from_pkcs12(cls, data: Union[bytes, "os.PathLike[str]"], password: Optional[Union[str, bytes]] = None) -> "SigningIdentity":
        """Reads a PKCS#12 file (PBES2, what OpenSSL 3 and ``cryptography`` write): its
        bytes, or a path.

        Raises:
            InvalidArgumentError: not PKCS#12, a wrong password, no key.
            UnsupportedError: the legacy RC2 and 3DES ciphers.
        """
        content = _content(data, "data")
        out = _raw.quire_signing_identity_p()
        check(_raw.lib.quire_signing_identity_from_pkcs12(byref(out), content, len(content),
                                                          optional_c_string(password, "password")))
        return cls(out)

    @property
    def name(self) -> str:
        """The signer's common name."""
        with self._lock:
            return text(query_bytes(_raw.lib.quire_signing_identity_name, self._live()))

    def __repr__(self) -> str:
        return "<quire.SigningIdentity %s>" % ("closed" if self.closed else repr(self.name))


class SignatureProblem(Tuple[SignatureProblemKind, str]):
    """One thing wrong with a signature: ``(kind, message)``."""

    __slots__ = ()

    def __new__(cls, kind: SignatureProblemKind, message: str) -> "SignatureProblem":
        return tuple.__new__(cls, (kind, message))

    @property
    def kind(self) -> SignatureProblemKind:
        return self[0]

    @property
    def message(self) -> str:
        return self[1]

    @property
    def fatal(self) -> bool:
        """Whether it makes the signature invalid (weak algorithms and PAdES profile
        deviations do not)."""
        return self[0] not in (SignatureProblemKind.WEAK_ALGORITHM, SignatureProblemKind.PROFILE)

    def __repr__(self) -> str:
        return "SignatureProblem(%s, %r)" % (self[0].name, self[1])


def _time(seconds: int) -> Optional[datetime.datetime]:
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc) if seconds else None


class SignatureReport:
    """One validated signature (a snapshot: it does not change with the document)."""

    __slots__ = ("field_name", "signer", "subfilter", "pades_level", "timestamp_authority", "certificate",
                 "valid", "intact", "signature_valid", "trusted", "changes_allowed", "coverage", "modification",
                 "certification", "digest", "field_object", "signature_object", "claimed_time", "timestamp_time",
                 "timestamp_intact", "timestamp_trusted", "byte_range", "problems")

    field_name: str
    """The signature field's full name."""
    signer: Optional[str]
    """The signer's common name (``None`` if the CMS could not be read)."""
    subfilter: Optional[str]
    pades_level: Optional[str]
    """``"B-B"`` or ``"B-T"`` for a PAdES signature, else ``None``."""
    timestamp_authority: Optional[str]
    certificate: Optional[bytes]
    """The signer's certificate, DER."""
    valid: bool
    """Intact, verifying, trusted, and nothing after it that it does not allow."""
    intact: bool
    signature_valid: bool
    trusted: bool
    changes_allowed: bool
    coverage: SignatureCoverage
    modification: Modification
    certification: DocMDP
    digest: DigestAlgorithm
    field_object: int
    signature_object: int
    claimed_time: Optional[datetime.datetime]
    timestamp_time: Optional[datetime.datetime]
    timestamp_intact: bool
    timestamp_trusted: bool
    byte_range: Tuple[int, int, int, int]
    problems: List[SignatureProblem]

    def __repr__(self) -> str:
        return "<quire.SignatureReport %r %s%s>" % (
            self.field_name, "valid" if self.valid else "INVALID",
            "" if not self.problems else " " + "; ".join(p.message for p in self.problems))


def _reports(handle: Any) -> List[SignatureReport]:
    """Every report of a ``quire_signature_list``."""
    n = c_int32()
    check(_raw.lib.quire_signature_list_count(byref(n), handle))
    reports = []
    for i in range(n.value):
        info = _raw.quire_signature_info()
        info.version = _raw.QUIRE_SIGNATURE_INFO_VERSION
        check(_raw.lib.quire_signature_list_info(byref(info), handle, i))

        def string(which: int, binary: bool = False) -> Any:
            length = c_size_t(0)
            status = _raw.lib.quire_signature_list_string(None, 0, byref(length), handle, i, which)
            if status == _raw.QUIRE_ENOTFOUND:
                return None
            check(status)
            data = query_bytes(_raw.lib.quire_signature_list_string, handle, i, which)
            return data if binary else text(data)

        r = SignatureReport()
        r.field_name = string(_raw.QUIRE_SIGNATURE_FIELD_NAME)
        r.signer = string(_raw.QUIRE_SIGNATURE_SIGNER)
        r.subfilter = string(_raw.QUIRE_SIGNATURE_SUBFILTER)
        r.pades_level = string(_raw.QUIRE_SIGNATURE_PADES_LEVEL)
        r.timestamp_authority = string(_raw.QUIRE_SIGNATURE_TIMESTAMP_AUTHORITY)
        r.certificate = string(_raw.QUIRE_SIGNATURE_CERTIFICATE, binary=True)
        r.valid = bool(info.valid)
        r.intact = bool(info.intact)
        r.signature_valid = bool(info.signature_valid)
        r.trusted = bool(info.trusted)
        r.changes_allowed = bool(info.changes_allowed)
        r.coverage = SignatureCoverage(info.coverage)
        r.modification = Modification(info.modification)
        r.certification = DocMDP(info.certification)
        r.digest = DigestAlgorithm(info.digest)
        r.field_object = info.field_object
        r.signature_object = info.signature_object
        r.claimed_time = _time(info.claimed_time)
        r.timestamp_time = _time(info.timestamp_time) if info.has_timestamp else None
        r.timestamp_intact = bool(info.timestamp_intact)
        r.timestamp_trusted = bool(info.timestamp_trusted)
        r.byte_range = (info.range1_offset, info.range1_length, info.range2_offset, info.range2_length)
        problems = []
        for k in range(info.problem_count):
            kind = c_int32()
            message = query_bytes(lambda buf, size, out_len: _raw.lib.quire_signature_list_problem(
                byref(kind), buf, size, out_len, handle, i, k))
            problems.append(SignatureProblem(SignatureProblemKind(kind.value), text(message)))
        r.problems = problems
        reports.append(r)
    return reports


def validate(document: "Document", trust_roots: Union[None, Source, Sequence[Source]],
             intermediates: Union[None, Source, Sequence[Source]], at: Optional[datetime.datetime]) -> List[SignatureReport]:
    """``Document.signatures``: see there."""
    roots = _pem(trust_roots, "trust_roots")
    more = _pem(intermediates, "intermediates")
    options = _raw.validation_options_init()
    options.trust_roots_pem = roots or None
    options.trust_roots_len = len(roots)
    options.intermediates_pem = more or None
    options.intermediates_len = len(more)
    if at is not None:
        options.time = int(at.timestamp())
    out = _raw.quire_signature_list_p()
    with document._lock:
        check(_raw.lib.quire_document_signatures(byref(out), document._read_handle(), byref(options)))
    try:
        return _reports(out)
    finally:
        _raw.lib.quire_signature_list_free(out)


#: A time-stamping callable: a DER RFC 3161 TimeStampReq in, the authority's DER
#: TimeStampResp out (what an HTTP TSA takes and gives).
TimestampCallback = Callable[[bytes], bytes]


class _SignOptions:
    """A ``quire_sign_options`` and what must live as long as it is used: its strings, the
    time-stamping callback, and the exceptions that callback raised."""

    def __init__(self, identity: SigningIdentity, *, field: Optional[str] = None, page: int = 0,
                 rect: Optional[Sequence[float]] = None, format: Any = "pades", digest: Any = "sha256",
                 name: Optional[str] = None, reason: Optional[str] = None, location: Optional[str] = None,
                 contact_info: Optional[str] = None, signing_time: Optional[datetime.datetime] = None,
                 look: Optional[str] = None, ink: Any = None, certify: Optional[int] = None,
                 timestamp: Optional[TimestampCallback] = None, reserved_size: int = 0) -> None:
        if not isinstance(identity, SigningIdentity):
            raise TypeError("identity: a quire.SigningIdentity, not %s" % type(identity).__name__)
        self.identity = identity
        options = self.options = _raw.sign_options_init()
        self._strings: List[Optional[bytes]] = []
        self.failures: List[BaseException] = []
        options.field_name = self._keep(field, "field")
        options.page = page
        if rect is not None:
            left, bottom, right, top = (float(v) for v in rect)
            options.rect.left, options.rect.bottom, options.rect.right, options.rect.top = left, bottom, right, top
        options.format = _enum(SignatureFormat, format, "format")
        options.digest = _enum(DigestAlgorithm, digest.replace("-", "") if isinstance(digest, str) else digest, "digest")
        options.name = self._keep(name, "name")
        options.reason = self._keep(reason, "reason")
        options.location = self._keep(location, "location")
        options.contact_info = self._keep(contact_info, "contact_info")
        if signing_time is not None:
            options.signing_time = int(signing_time.timestamp())
        if ink is not None:
            options.look = _raw.QUIRE_SIGNATURE_LOOK_INK
            options.ink_object = int(getattr(ink, "id", ink))
        elif look is not None:
            looks = {"text": _raw.QUIRE_SIGNATURE_LOOK_TEXT, "invisible": _raw.QUIRE_SIGNATURE_LOOK_INVISIBLE}
            if look not in looks:
                raise InvalidArgumentError(_raw.QUIRE_EINVAL, "look: 'text' or 'invisible' (or ink=annotation), not %r" % (look,))
            options.look = looks[look]
        elif rect is None:
            options.look = _raw.QUIRE_SIGNATURE_LOOK_INVISIBLE
        if certify is not None:
            if certify not in (1, 2, 3):
                raise InvalidArgumentError(_raw.QUIRE_EINVAL, "certify: the DocMDP permissions 1, 2 or 3, not %r" % (certify,))
            options.certification = _raw.QUIRE_DOCMDP_NONE + certify
        options.reserved_size = reserved_size
        self._timestamp = None
        if timestamp is not None:
            def call(response: Any, request: Any, length: int, payload: Any) -> int:
                try:
                    answer = bytes(timestamp(ctypes.string_at(request, length)))
                except BaseException as e:  # noqa: BLE001 (raised again once the library returns)
                    self.failures.append(e)
                    return 1
                return int(_raw.lib.quire_timestamp_response_set(response, answer, len(answer)))

            self._timestamp = _raw.quire_timestamp_fn(call)
            options.timestamp = self._timestamp

    def _keep(self, value: Optional[Union[str, bytes]], what: str) -> Optional[bytes]:
        s = optional_c_string(value, what)
        self._strings.append(s)
        return s

    def raise_for(self, status: int) -> None:
        """Raises for ``status``, with an exception a callback raised as its cause."""
        failures, self.failures = self.failures, []
        if failures and status == _raw.QUIRE_EUSER:
            if not isinstance(failures[0], Exception):
                raise failures[0]
            try:
                check(status)
            except Exception as e:
                raise e from failures[0]
        check(status)


def sign(document: "Document", target: Union[PathType, BinaryIO], identity: SigningIdentity, **kwargs: Any) -> None:
    """``Document.sign``: see there."""
    built = _SignOptions(identity, **kwargs)
    options, failures = built.options, built.failures
    with identity._lock:
        options.identity = identity._live()
        with document._lock:
            if isinstance(target, (str, os.PathLike)):
                path = c_string(os.fsencode(os.fspath(target)), "the path")
                status = _raw.lib.quire_document_sign(document._live_handle(), byref(options), path)
            else:
                write = getattr(target, "write", None)
                if not callable(write):
                    raise TypeError("sign takes a path or a binary file object, not %s" % type(target).__name__)

                def piece(data: Any, size: int, payload: Any) -> int:
                    try:
                        write(ctypes.string_at(data, size))
                    except BaseException as e:  # noqa: BLE001
                        failures.append(e)
                        return 1
                    return 0

                c_write = _raw.quire_write_fn(piece)
                status = _raw.lib.quire_document_sign_to_callback(document._live_handle(), byref(options), c_write, None)
    built.raise_for(status)
