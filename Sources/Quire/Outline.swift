// Outline and page labels of include/quire.h: conversions only.
import CQuire
import QuireDocument

func outlineItem(_ doc: OpaquePointer?, _ index: Int32) throws -> FlatOutlineItem {
    try element(try document(doc).flatOutline(), index, "outline item")
}

@c @implementation
public func quire_document_outline_count(_ out: UnsafeMutablePointer<Int32>?, _ doc: OpaquePointer?) -> Int32 {
    guarded("quire_document_outline_count") {
        let out = try required(out, "out")
        out.pointee = Int32(clamping: try document(doc).flatOutline().count)
    }
}

@c @implementation
public func quire_document_outline_item(_ outDepth: UnsafeMutablePointer<Int32>?, _ outParent: UnsafeMutablePointer<Int32>?,
                                        _ outChildCount: UnsafeMutablePointer<Int32>?, _ outIsOpen: UnsafeMutablePointer<Int32>?,
                                        _ outAction: UnsafeMutablePointer<quire_action_type>?, _ outPageIndex: UnsafeMutablePointer<Int32>?,
                                        _ doc: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_document_outline_item") {
        let item = try outlineItem(doc, index)
        outDepth?.pointee = Int32(clamping: item.depth)
        outParent?.pointee = Int32(clamping: item.parent)
        outChildCount?.pointee = Int32(clamping: item.childCount)
        outIsOpen?.pointee = item.isOpen ? 1 : 0
        switch item.kind {
        case .none: outAction?.pointee = QUIRE_ACTION_NONE
        case .goTo: outAction?.pointee = QUIRE_ACTION_GOTO
        case .goToRemote: outAction?.pointee = QUIRE_ACTION_GOTOR
        case .uri: outAction?.pointee = QUIRE_ACTION_URI
        case .named: outAction?.pointee = QUIRE_ACTION_NAMED
        case .launch: outAction?.pointee = QUIRE_ACTION_LAUNCH
        case .other: outAction?.pointee = QUIRE_ACTION_OTHER
        }
        outPageIndex?.pointee = Int32(clamping: item.pageIndex ?? -1)
    }
}

@c @implementation
public func quire_document_outline_title(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                         _ doc: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_document_outline_title") {
        _ = try required(outLen, "out_len")
        try copyOut(try outlineItem(doc, index).title, buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_document_outline_target(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                                          _ doc: OpaquePointer?, _ index: Int32) -> Int32 {
    guarded("quire_document_outline_target") {
        _ = try required(outLen, "out_len")
        guard let target = try outlineItem(doc, index).target else {
            throw CallError(code: QUIRE_ENOTFOUND, message: "outline item \(index) has no text target")
        }
        try copyOut(target, buf, bufSize, outLen)
    }
}

@c @implementation
public func quire_page_label(_ buf: UnsafeMutablePointer<CChar>?, _ bufSize: Int, _ outLen: UnsafeMutablePointer<Int>?,
                             _ doc: OpaquePointer?, _ pageIndex: Int32) -> Int32 {
    guarded("quire_page_label") {
        _ = try required(outLen, "out_len")
        let d = try document(doc)
        // pageLabel(at:) checks the range (ERANGE) before the labels (ENOTFOUND). Labels
        // number the counted pages: a page missing from the page tree has one too.
        guard let label = try d.pageLabel(at: Int(pageIndex)) else {
            throw CallError(code: QUIRE_ENOTFOUND, message: "the document has no page labels")
        }
        try copyOut(label, buf, bufSize, outLen)
    }
}
