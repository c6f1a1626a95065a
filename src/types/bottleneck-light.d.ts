// bottleneck ships types for its main entry only; light.js is the same API without clustering.
declare module 'bottleneck/light.js' {
  import Bottleneck from 'bottleneck'
  export default Bottleneck
}
