// redlock 5 ships its types without pointing its package.json "exports" at them.
declare module 'redlock' {
  import Redlock from '../node_modules/redlock/dist/index';
  export default Redlock;
}
