import CQuire
import QuireDocument

// The record ids of annotations (include/quire/annotations.h): the names the annotation
// JSON and the sync give them, from the model's one rule (Document.recordID(of:)).

@c @implementation
public func quire_document_annotation_record_id(
    _ buf: UnsafeMutablePointer<CChar>?,
    _ bufSize: Int,
    _ outLen: UnsafeMutablePointer<Int>?,
    _ doc: OpaquePointer?,
    _ annotation: OpaquePointer?
) -> Int32 {
    guarded("quire_document_annotation_record_id") {
        _ = try required(outLen, "out_len")
        let d = try document(doc)
        let a = try box(annotation).annotation
        guard let id = try d.recordID(of: a) else {
            throw CallError(
                code: QUIRE_ENOTFOUND,
                message:
                    "page \(a.pageIndex + 1) of the document does not list the annotation (not added yet, or deleted)"
            )
        }
        try copyOut(id, buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_document_annotation_by_record_id(
    _ out: UnsafeMutablePointer<OpaquePointer?>?,
    _ doc: OpaquePointer?,
    _ recordID: UnsafePointer<CChar>?
) -> Int32 {
    guarded("quire_document_annotation_by_record_id") {
        let out = try required(out, "out")
        let d = try document(doc)
        let id = try nonEmptyText(recordID, "record_id")
        guard let a = try d.annotation(recordID: id) else {
            throw CallError(code: QUIRE_ENOTFOUND, message: "no annotation has the record id \"\(id.prefix(80))\"")
        }
        give(a, out)
    }
}
