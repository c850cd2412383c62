/** The parts of a laid-out string diagram (src/draw/layout.ts lays them out, diagram.ts draws them). */

/** A box (a morphism), a dot (copy, add, discard), or the label of a parameter wire. */
export interface Node {
  kind: 'box' | 'copy' | 'add' | 'discard';
  label: string;
  x: number;
  y: number;
  w: number;
  h: number;
  /** Parameter shapes entering from above (the Para picture). */
  params: string[];
}

/** A wire from (x1,y1) to (x2,y2) through optional bends, labelled with the shape it carries. */
export interface Wire {
  points: [number, number][];
  label: string;
  /** A parameter wire (drawn dashed, entering a box from above). */
  param?: boolean;
}

/** A dashed frame around the expansion of a named composite (transformer(…)), labelled with its name. */
export interface Frame {
  label: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A laid-out string diagram: data flows left to right, parameters enter from above. */
export interface Diagram {
  width: number;
  height: number;
  nodes: Node[];
  wires: Wire[];
  frames: Frame[];
  /** y of the input and output wire, relative to the diagram's top. */
  inY: number;
  outY: number;
}
