import QuireDocument

extension ToolManager {
    /// Makes the Signature tool sign the field it draws in (issue 37): a drawing centred
    /// in an unsigned signature field's widget signs that field with `options` (its
    /// `fieldName` and `look` are set per drawing: the field, and the drawing as its
    /// look), and the signed file is saved to `path` (``Document/sign(_:to:)``; the
    /// document continues from it). nil turns it off: the tool only draws. A drawing
    /// anywhere else stays an ink annotation.
    public func signDrawnSignatures(_ options: SigningOptions?, to path: String) {
        guard let options else {
            signatureSigner = nil
            return
        }
        let document = self.document
        signatureSigner = { ink, field in
            var o = options
            o.fieldName = field
            o.look = .ink(ink)
            try document.sign(o, to: path)
        }
    }
}
