import QuireSyntax

/// What the current tool is drawing and has not made yet, so that a viewer draws a preview
/// from the tool's own state instead of redoing the tool's logic: the rectangle or segment
/// of a drag, ink strokes in progress, polygon vertices so far, the selection being moved
/// or resized, the rubber band of a multiple selection. All in user space of `pageIndex`.
public struct ToolPreview: Sendable, Equatable {
    public enum Kind: Int, Sendable, CaseIterable {
        /// The rectangle of a drag: a square's, a circle's, a free text box's, or the
        /// span a text markup drag covers so far (from its start to the pointer).
        case rect
        /// A line's or an arrow's segment: one path of two points.
        case segment
        /// Ink strokes: the strokes held, the last one possibly still being drawn.
        case ink
        /// A polygon's or polyline's vertices so far: one path (``ToolPreview/closed`` for
        /// a polygon).
        case vertices
        /// The selected annotations being moved: ``offset`` so far, ``rect`` their bounds
        /// moved by it.
        case move
        /// The selected annotation being resized: ``rect`` its new rectangle.
        case resize
        /// The rubber band of a multiple selection.
        case select
    }

    public var kind: Kind
    /// The tool that draws it.
    public var tool: ToolID
    public var pageIndex: Int
    /// The rectangle (normalized); for paths, their bounds.
    public var rect: Rect
    /// ``Kind/move``: how far the selection moved; else zero.
    public var offset: Point = Point(x: 0, y: 0)
    /// The paths, x, y pairs: a segment's two points, each ink stroke, the vertices.
    public var paths: [[Double]] = []
    /// A polygon's vertices: the path closes.
    public var closed = false
    /// ``Kind/move`` and ``Kind/resize``: the annotations that move.
    public var annotations: [ObjectID] = []

    public init(kind: Kind, tool: ToolID, pageIndex: Int, rect: Rect) {
        self.kind = kind; self.tool = tool; self.pageIndex = pageIndex; self.rect = rect.normalized
    }

    /// A preview of paths, with their bounds as the rectangle; nil when there are no points.
    static func paths(_ kind: Kind, tool: ToolID, pageIndex: Int, _ paths: [[Double]]) -> ToolPreview? {
        guard let r = bounds(paths.flatMap { $0 }, pad: 0) else { return nil }
        var p = ToolPreview(kind: kind, tool: tool, pageIndex: pageIndex, rect: r)
        p.paths = paths
        return p
    }
}

/// How a selection is changed (``ToolManager/select(_:mode:)``).
public enum SelectionMode: Int, Sendable, CaseIterable {
    /// The selection becomes the annotations given.
    case replace
    /// They join the selection.
    case add
    /// Each given one leaves the selection when it is in it, else joins it.
    case toggle
    /// They leave the selection.
    case remove
}

/// A step of the manager's history, as a viewer shows it (an Edit menu's "Undo Move
/// Square"): what it did, and the annotations it changed.
public struct UndoStepInfo: Sendable, Equatable {
    /// "Add Square", "Move 3 annotations", "Delete Ink", "Reply to Note", ...
    public var description: String
    /// The annotations the step added, removed or changed.
    public var annotations: [ObjectID]
}
