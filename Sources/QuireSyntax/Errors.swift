/// The kind of a failure, one for each status of the C interface; the C layer maps them
/// one to one.
public enum PDFErrorKind: Sendable, Equatable {
    /// An argument is invalid: the caller's mistake, not the file's.
    case invalidArgument
    /// The operating system failed a read or a write.
    case io
    /// A file, key or object that was asked for does not exist.
    case notFound
    /// The bytes are not a PDF, or are damaged beyond repair.
    case format
    /// The password does not open the document.
    case password
    /// A feature this version does not support.
    case unsupported
    /// A safety limit was exceeded (see ``PDFLimits``).
    case limit
    /// An index is out of range.
    case range
    /// The object is in a state that does not allow the call.
    case state
    /// A bug in Quire.
    case `internal`
    /// The feature is turned off for this document (replies, when the document's feature
    /// switch says so).
    case disabled
    /// Something the call needs is held by another user (a checkpoint locked by another
    /// open document).
    case busy
    /// Saved state belongs to a different version of the file (a checkpoint taken before
    /// the file changed).
    case stale
    /// Saved state that the call would replace exists and was not to be replaced (a
    /// checkpoint with unsaved changes, when starting checkpoints was asked to refuse).
    case exists
    /// A versioned struct of a newer version than this library knows.
    case version

    /// The name of the C status this kind becomes, for messages of the command-line tool.
    public var statusName: String {
        switch self {
        case .invalidArgument: return "QUIRE_EINVAL"
        case .io: return "QUIRE_EIO"
        case .notFound: return "QUIRE_ENOTFOUND"
        case .format: return "QUIRE_EFORMAT"
        case .password: return "QUIRE_EPASSWORD"
        case .unsupported: return "QUIRE_EUNSUPPORTED"
        case .limit: return "QUIRE_ELIMIT"
        case .range: return "QUIRE_ERANGE"
        case .state: return "QUIRE_ESTATE"
        case .internal: return "QUIRE_EINTERNAL"
        case .disabled: return "QUIRE_EDISABLED"
        case .busy: return "QUIRE_EBUSY"
        case .stale: return "QUIRE_ESTALE"
        case .exists: return "QUIRE_EEXIST"
        case .version: return "QUIRE_EVERSION"
        }
    }
}

/// The one error type of Quire's Swift layers: a kind (which becomes the C status) and a
/// message for people, which names what failed and where.
public struct PDFError: Error, Sendable, Equatable, CustomStringConvertible {
    public let kind: PDFErrorKind
    public let message: String
    /// For a ``PDFErrorKind/limit`` error: the limit's name, as in the C options
    /// (`max_nesting_depth`, ...).
    public let limitName: String?

    public init(_ kind: PDFErrorKind, _ message: String) {
        self.kind = kind
        self.message = message
        self.limitName = nil
    }

    /// A limit error naming the limit and its value.
    public init(limit name: String, _ value: Int, _ what: String) {
        kind = .limit
        message = "\(what) exceeds the limit \(name)=\(value)"
        limitName = name
    }

    public var description: String { message }

    static func format(_ message: String, at offset: Int? = nil) -> PDFError {
        if let offset { return PDFError(.format, "\(message) (at byte \(offset))") }
        return PDFError(.format, message)
    }
}
